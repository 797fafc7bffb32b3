/**
 * Where a server's TLS material comes from: the user's files (`--tls-cert` / `--tls-key`), or with
 * `--https` a self-signed certificate (tls.ts) reused from the data directory while it still
 * serves, else made anew. Failures are one-line StartupErrors saying what to do.
 *
 * Nothing is written before the server is up (a start-up that fails leaves no trace): a new
 * certificate is saved by `saveCertificate` once the store has opened, into the data directory, or
 * with an in-memory store into a temporary directory that close() removes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeOf } from '../storage/directory.js';
import { StartupError } from './data-dir.js';
import { selfSignedCertificate, stillServes, type TlsMaterial } from './tls.js';

export const CERTIFICATE_FILE = 'https-cert.pem';
export const KEY_FILE = 'https-key.pem';
/** PEM files this large are no certificate or key a server uses; refuse rather than read them whole. */
const PEM_FILE_BYTES_MAX = 1024 * 1024;

export interface ServedTls {
  readonly material: TlsMaterial;
  /** Made by dynatwin (clients must be told to trust it), rather than given by the user. */
  readonly selfSigned: boolean;
  /** Where the self-signed certificate lies already, or undefined until saveCertificate. */
  readonly certificatePath: string | undefined;
}

export interface TlsOptions {
  readonly https: boolean;
  readonly tlsCert?: string | undefined;
  readonly tlsKey?: string | undefined;
  readonly host: string;
}

/**
 * The TLS material to serve with, or undefined for plain HTTP. `dataPath` is the claimed data
 * directory (undefined in memory); `wallNowMs` is wall-clock time, because a certificate's
 * validity is judged by clients' clocks, never by the server's (possibly manual) one.
 */
export async function tlsFor(options: TlsOptions, dataPath: string | undefined, wallNowMs: number): Promise<ServedTls | undefined> {
  if (options.tlsCert !== undefined || options.tlsKey !== undefined) return userTls(options);
  if (!options.https) return undefined;
  if (dataPath !== undefined) {
    const kept = await keptCertificate(dataPath, options.host, wallNowMs);
    if (kept !== undefined) return kept;
  }
  return { material: selfSignedCertificate([options.host], wallNowMs), selfSigned: true, certificatePath: undefined };
}

async function userTls(options: TlsOptions): Promise<ServedTls> {
  if (options.tlsCert === undefined || options.tlsKey === undefined) {
    throw new StartupError('--tls-cert and --tls-key go together: give both (PEM files), or use --https for a self-signed certificate');
  }
  if (options.https) throw new StartupError('--https makes its own certificate: use it without --tls-cert and --tls-key');
  const material = { cert: await readPem(options.tlsCert, '--tls-cert'), key: await readPem(options.tlsKey, '--tls-key') };
  try {
    // Node checks the pair when it builds a secure context: fail here, in one line, not at the first client.
    const { createSecureContext } = await import('node:tls');
    createSecureContext(material);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new StartupError(`--tls-cert ${options.tlsCert} and --tls-key ${options.tlsKey} are no usable PEM certificate and key (${detail})`);
  }
  return { material, selfSigned: false, certificatePath: options.tlsCert };
}

async function readPem(path: string, flag: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new StartupError(`${flag} ${path} cannot be read (${codeOf(error) ?? String(error)}); give the path of a PEM file`);
  }
  if (bytes.length > PEM_FILE_BYTES_MAX) throw new StartupError(`${flag} ${path} is ${bytes.length} bytes: no PEM file; give the path of a PEM file`);
  return bytes.toString('utf8');
}

async function keptCertificate(dataPath: string, host: string, wallNowMs: number): Promise<ServedTls | undefined> {
  const certificatePath = join(dataPath, CERTIFICATE_FILE);
  let material: TlsMaterial;
  try {
    material = { cert: await readFile(certificatePath, 'utf8'), key: await readFile(join(dataPath, KEY_FILE), 'utf8') };
  } catch {
    return undefined; // none yet (or unreadable): a new one replaces it
  }
  return stillServes(material, [host], wallNowMs) ? { material, selfSigned: true, certificatePath } : undefined;
}

/**
 * Saves a new self-signed certificate where clients can find it; answers its path and how to
 * clean up (the temporary directory of an in-memory server). Call once the store is open.
 */
export async function saveCertificate(tls: ServedTls, dataPath: string | undefined): Promise<{ path: string; cleanUp(): Promise<void> }> {
  if (tls.certificatePath !== undefined) return { path: tls.certificatePath, cleanUp: async () => {} };
  const directory = dataPath ?? (await mkdtemp(join(tmpdir(), 'dynatwin-https-')));
  const path = join(directory, CERTIFICATE_FILE);
  if (dataPath !== undefined) await writeFile(join(directory, KEY_FILE), tls.material.key, { mode: 0o600 });
  await writeFile(path, tls.material.cert);
  return { path, cleanUp: dataPath === undefined ? () => rm(directory, { recursive: true, force: true }) : async () => {} };
}
