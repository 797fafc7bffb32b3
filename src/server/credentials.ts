/**
 * The credentials `--auth verify` accepts: every profile of an AWS shared-credentials file
 * (`--credentials-file`, the INI format of ~/.aws/credentials: `[profile]` sections with
 * aws_access_key_id, aws_secret_access_key and optionally aws_session_token), and the
 * environment's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN), as the SDKs and
 * the AWS CLI read them. Read once at start-up.
 */
import { readFile } from 'node:fs/promises';
import { StartupError } from './data-dir.js';
import type { KnownCredential } from './sigv4.js';

/** A credentials file larger than this is not one (a typo naming some other file). */
const CREDENTIALS_FILE_BYTES_MAX = 1024 * 1024;

/**
 * Every profile with both an access key id and a secret; later profiles win for a repeated key id.
 * Lines: `[name]` (also `[profile name]`, the config file's form), `key = value`, and comments
 * (`#` or `;` first). Anything else is ignored, as the SDKs ignore it.
 */
export function parseSharedCredentials(text: string): Map<string, KnownCredential> {
  const credentials = new Map<string, KnownCredential>();
  let profile: Map<string, string> | undefined;
  const flush = (): void => {
    if (profile === undefined) return;
    const id = profile.get('aws_access_key_id');
    const secret = profile.get('aws_secret_access_key');
    if (id !== undefined && id !== '' && secret !== undefined && secret !== '') {
      const token = profile.get('aws_session_token');
      credentials.set(id, token === undefined || token === '' ? { secretAccessKey: secret } : { secretAccessKey: secret, sessionToken: token });
    }
  };
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      flush();
      profile = new Map();
      continue;
    }
    const equals = line.indexOf('=');
    if (profile === undefined || equals <= 0) continue;
    profile.set(line.slice(0, equals).trim().toLowerCase(), line.slice(equals + 1).trim());
  }
  flush();
  return credentials;
}

/** The environment's credentials, if both variables are set. */
export function environmentCredentials(environment: Readonly<Record<string, string | undefined>>): Map<string, KnownCredential> {
  const credentials = new Map<string, KnownCredential>();
  const id = environment.AWS_ACCESS_KEY_ID;
  const secret = environment.AWS_SECRET_ACCESS_KEY;
  const token = environment.AWS_SESSION_TOKEN;
  if (id !== undefined && id !== '' && secret !== undefined && secret !== '') {
    credentials.set(id, token === undefined || token === '' ? { secretAccessKey: secret } : { secretAccessKey: secret, sessionToken: token });
  }
  return credentials;
}

/**
 * The credentials `--auth verify` checks against: the file's, then the environment's (which win
 * for the same key id). Throws StartupError when the file cannot be read or nothing is found.
 */
export async function loadCredentials(file: string | undefined, environment: Readonly<Record<string, string | undefined>>): Promise<Map<string, KnownCredential>> {
  const credentials = new Map<string, KnownCredential>();
  if (file !== undefined) {
    let text: string;
    try {
      const bytes = await readFile(file);
      if (bytes.length > CREDENTIALS_FILE_BYTES_MAX) throw new Error(`larger than ${CREDENTIALS_FILE_BYTES_MAX} bytes`);
      text = bytes.toString('utf8');
    } catch (error) {
      throw new StartupError(`cannot read the credentials file ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const parsed = parseSharedCredentials(text);
    if (parsed.size === 0) throw new StartupError(`the credentials file ${file} has no profile with aws_access_key_id and aws_secret_access_key`);
    for (const [id, credential] of parsed) credentials.set(id, credential);
  }
  for (const [id, credential] of environmentCredentials(environment)) credentials.set(id, credential);
  if (credentials.size === 0) {
    throw new StartupError('--auth verify needs credentials: --credentials-file <path>, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment');
  }
  return credentials;
}
