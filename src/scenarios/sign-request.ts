/**
 * SigV4 signing for `dynatwin analyze`'s own requests, so that it reads a twin started with
 * `--auth verify` with the credentials its user has (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
 * AWS_SESSION_TOKEN), as an SDK would sign them: service `dynamodb`, the body's SHA-256, `host`,
 * `x-amz-date`, the token and every header given signed. Client side only; the server's check is
 * server/sigv4.ts (this layer may not import it). node:crypto only.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** What is signed: the request as it will be sent (its headers lowercase, without host). */
export interface RequestToSign {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const SERVICE = 'dynamodb';

/** The environment's credentials, as the SDKs read them; undefined unless both key and secret are set. */
export function environmentCredentials(environment: Readonly<Record<string, string | undefined>>): SigningCredentials | undefined {
  const accessKeyId = environment.AWS_ACCESS_KEY_ID;
  const secretAccessKey = environment.AWS_SECRET_ACCESS_KEY;
  if (accessKeyId === undefined || accessKeyId === '' || secretAccessKey === undefined || secretAccessKey === '') return undefined;
  const sessionToken = environment.AWS_SESSION_TOKEN;
  return sessionToken === undefined || sessionToken === '' ? { accessKeyId, secretAccessKey } : { accessKeyId, secretAccessKey, sessionToken };
}

/** The request's headers with x-amz-date, the session token and Authorization added. */
export function signRequest(request: RequestToSign, credentials: SigningCredentials, region: string, nowMs: number): Record<string, string> {
  const date = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = date.slice(0, 8);
  const headers: Record<string, string> = { ...request.headers, 'x-amz-date': date };
  if (credentials.sessionToken !== undefined) headers['x-amz-security-token'] = credentials.sessionToken;
  const signed: Record<string, string> = { ...headers, host: request.url.host };
  const names = Object.keys(signed).sort();
  const canonicalHeaders = names.map((name) => `${name}:${signed[name]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonical = [request.method, canonicalPath(request.url.pathname), canonicalQuery(request.url.searchParams), canonicalHeaders, signedHeaders, sha256Hex(request.body)].join('\n');
  const scope = `${day}/${region}/${SERVICE}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${sha256Hex(canonical)}`;
  let key: Buffer = createHmac('sha256', `AWS4${credentials.secretAccessKey}`).update(day).digest();
  for (const part of [region, SERVICE, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** As the SDKs sign every service but S3: the path as sent, encoded once more ('/' kept). */
function canonicalPath(path: string): string {
  return escapeUri(path).replace(/%2F/g, '/');
}

function canonicalQuery(parameters: URLSearchParams): string {
  const pairs = [...parameters].map(([name, value]) => [escapeUri(name), escapeUri(value)] as const);
  pairs.sort(([leftName, left], [rightName, right]) => (leftName < rightName ? -1 : leftName > rightName ? 1 : left < right ? -1 : left > right ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

/** RFC 3986 percent-encoding: everything but A-Z a-z 0-9 - _ . ~. */
function escapeUri(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
