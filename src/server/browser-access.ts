/**
 * Who may talk to dynatwin from a browser. dynatwin runs on a developer's machine beside their
 * browser, so any page they open could otherwise use it:
 *
 * - DNS rebinding: a page on `attacker.example` re-points its name at 127.0.0.1 and then reads us
 *   as "same origin". The browser still sends `Host: attacker.example`, so every request must name
 *   an allowed host: loopback names and addresses, the address the server is bound to (with a
 *   wildcard bind, this machine's own addresses and name), and the `--allow-host` list.
 * - Cross-origin pages: a request with an `Origin` that is neither loopback, nor this server
 *   itself, nor in the `--cors-origin` list is refused before anything runs (preflights
 *   included), and CORS headers are sent only to allowed origins.
 * - Simple requests that need no preflight (`text/plain` POSTs): dynatwin's own state-changing
 *   routes accept only `application/json`, which a cross-site page cannot send without a
 *   preflight (see `stateChangeRefusal`, applied by the inspection router to every POST route).
 *
 * A `*` in either list is the user's explicit choice to allow any host or origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

export interface BrowserAccessOptions {
  /** Host names or addresses accepted in the Host header beyond the defaults; `*` accepts any. */
  readonly allowHosts: readonly string[];
  /** Origins (`http://app.example:3000`) answered with CORS beyond loopback ones; `*` answers any. */
  readonly corsOrigins: readonly string[];
}

export const DEFAULT_BROWSER_ACCESS: BrowserAccessOptions = { allowHosts: [], corsOrigins: [] };

/** A refused request: the HTTP status and a message that tells the user what to change. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}

/** Verdicts remembered per distinct header value; past this many, further values are judged each time. */
const REMEMBERED_VALUES_MAX = 64;

/** The preflight answer is cached by the browser per origin and URL; ten minutes is plenty. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const EXPOSED_HEADERS = 'x-amzn-RequestId,x-amz-crc32,x-amz-id-2';

export class BrowserAccess {
  readonly #anyHost: boolean;
  readonly #anyOrigin: boolean;
  readonly #hosts: ReadonlySet<string>;
  readonly #origins: ReadonlySet<string>;
  /** The user's `--allow-host` names, for the banner. */
  readonly #widenedHosts: readonly string[];
  /** Host header values already accepted: the protocol's hot path pays one Set lookup. */
  readonly #acceptedHostHeaders = new Set<string>();
  /** Origin header values already accepted (refusals are not remembered: they are rare and cheap to redo). */
  readonly #acceptedOrigins = new Set<string>();

  constructor(boundHost: string, options: BrowserAccessOptions = DEFAULT_BROWSER_ACCESS) {
    this.#anyHost = options.allowHosts.includes('*');
    this.#anyOrigin = options.corsOrigins.includes('*');
    this.#widenedHosts = options.allowHosts.filter((name) => name !== '*').map(normalizeHostName);
    const hosts = new Set<string>(this.#widenedHosts);
    for (const name of boundHostNames(boundHost)) hosts.add(normalizeHostName(name));
    this.#hosts = hosts;
    this.#origins = new Set(options.corsOrigins.filter((origin) => origin !== '*').map(normalizeOrigin));
  }

  /**
   * Why this request must be refused (a foreign Host or a foreign Origin), or undefined. Called
   * first for every request, before the body is read.
   */
  refusal(request: IncomingMessage): Refusal | undefined {
    const host = request.headers.host;
    if (!this.hostAllowed(host)) {
      return {
        status: 403,
        message: `dynatwin refused the request: Host '${host}' is not allowed (a web page may be using DNS rebinding); start dynatwin with --allow-host ${hostNameOf(host ?? '') ?? '<name>'} if you use this name`,
      };
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !this.originAllowed(origin, host)) {
      return {
        status: 403,
        message: `dynatwin refused the request: Origin '${origin}' is not allowed (only loopback pages may use dynatwin by default); start dynatwin with --cors-origin ${origin} to allow this page`,
      };
    }
    return undefined;
  }

  /** An HTTP/1.0 request without Host comes from no browser and names no host: accepted. */
  hostAllowed(host: string | undefined): boolean {
    if (host === undefined || this.#anyHost || this.#acceptedHostHeaders.has(host)) return true;
    const name = hostNameOf(host);
    const allowed = name !== undefined && (isLoopbackName(name) || this.#hosts.has(name));
    if (allowed) remember(this.#acceptedHostHeaders, host);
    return allowed;
  }

  /** Loopback pages, pages served by this server itself (same host and port), and the `--cors-origin` list. */
  originAllowed(origin: string, host: string | undefined): boolean {
    if (this.#anyOrigin || this.#acceptedOrigins.has(origin)) return true;
    const normalized = normalizeOrigin(origin);
    const url = parseOrigin(normalized);
    if (this.#origins.has(normalized) || (url !== undefined && isLoopbackName(hostNameOf(url.host) ?? ''))) {
      remember(this.#acceptedOrigins, origin);
      return true;
    }
    // A page served by this very server (the dashboard reached through an allowed, non-loopback
    // name). Not remembered: the verdict depends on the Host.
    return url !== undefined && host !== undefined && url.host === host.toLowerCase();
  }

  /** CORS headers for a request whose Origin was allowed (`refusal` ran first). */
  setCorsHeaders(request: IncomingMessage, response: ServerResponse, origin: string): void {
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Vary', 'Origin');
    response.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (request.method !== 'OPTIONS') return;
    const requestedHeaders = request.headers['access-control-request-headers'];
    if (requestedHeaders !== undefined) response.setHeader('Access-Control-Allow-Headers', requestedHeaders);
    const requestedMethod = request.headers['access-control-request-method'];
    if (requestedMethod !== undefined) response.setHeader('Access-Control-Allow-Methods', requestedMethod);
    response.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
  }

  /** A line for the start-up banner when the user widened access, else ''. */
  describeWidening(): string {
    const parts: string[] = [];
    if (this.#anyHost) parts.push('any Host allowed (--allow-host *)');
    else if (this.#widenedHosts.length > 0) parts.push(`hosts allowed: loopback, ${this.#widenedHosts.join(', ')}`);
    if (this.#anyOrigin) parts.push('CORS open to every web page (--cors-origin *)');
    else if (this.#origins.size > 0) parts.push(`CORS origins: loopback, ${[...this.#origins].join(', ')}`);
    return parts.join('; ');
  }
}

/**
 * The guard of dynatwin's own state-changing routes (every POST under /dynatwin/): the body must be
 * declared `application/json`, which a page on another site can only send after a CORS preflight
 * (that `BrowserAccess` refuses), and a present Origin must be allowed. A `text/plain` POST, which
 * browsers send cross-site without asking, changes nothing.
 */
export function stateChangeRefusal(request: IncomingMessage, access: BrowserAccess | undefined): Refusal | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && access !== undefined && !access.originAllowed(origin, request.headers.host)) {
    return { status: 403, message: `Origin '${origin}' may not change dynatwin's state` };
  }
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json') {
    return { status: 415, message: `dynatwin's POST routes take Content-Type: application/json (got '${request.headers['content-type'] ?? ''}')` };
  }
  return undefined;
}

function remember(values: Set<string>, value: string): void {
  if (values.size < REMEMBERED_VALUES_MAX) values.add(value);
}

/** The host name of a Host header value (`name:port`, `[v6]:port`), lowercased, without a final dot. */
export function hostNameOf(host: string): string | undefined {
  let name: string;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close < 0) return undefined;
    name = host.slice(1, close);
    const rest = host.slice(close + 1);
    if (rest !== '' && !/^:\d*$/.test(rest)) return undefined;
  } else {
    const colon = host.indexOf(':');
    name = colon < 0 ? host : host.slice(0, colon);
    if (colon >= 0 && !/^\d*$/.test(host.slice(colon + 1))) return undefined;
  }
  return normalizeHostName(name);
}

function normalizeHostName(name: string): string {
  let normalized = name.trim().toLowerCase();
  if (normalized.startsWith('[') && normalized.endsWith(']')) normalized = normalized.slice(1, -1);
  return normalized.endsWith('.') ? normalized.slice(0, -1) : normalized;
}

/** `localhost`, `*.localhost` (browsers resolve these to loopback themselves), 127.0.0.0/8 and ::1. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  if (family === 4) return name.startsWith('127.');
  if (family === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1' || name.startsWith('::ffff:127.');
  return false;
}

/** The names a client of a server bound to `boundHost` legitimately puts in Host. */
function boundHostNames(boundHost: string): string[] {
  const host = normalizeHostName(boundHost);
  if (host !== '' && host !== '0.0.0.0' && host !== '::') return [host];
  // A wildcard bind serves the network: this machine's own addresses and name.
  const names = [hostname()];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) names.push(address.address);
  }
  return names;
}

function normalizeOrigin(origin: string): string {
  const trimmed = origin.trim().toLowerCase();
  return trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
}

function parseOrigin(origin: string): URL | undefined {
  if (!origin.startsWith('http://') && !origin.startsWith('https://')) return undefined;
  try {
    return new URL(origin);
  } catch {
    return undefined;
  }
}
