/**
 * `--store postgres://user:password@host:port/database[?schema=name&sslmode=...]`: what the URL
 * says, and the same URL with its password hidden for every message that names it.
 *
 * `schema` is dynatwin's own parameter: the PostgreSQL schema its tables live in (default
 * `dynatwin`), so that one database can hold several independent twins (the test suite gives each
 * twin its own). The rest is libpq's URL as `pg` reads it (sslmode among them).
 */

/** The schema dynatwin's tables go in when the URL names none. */
export const DEFAULT_SCHEMA = 'dynatwin';

/** PostgreSQL's identifier limit (NAMEDATALEN - 1); a schema name is a plain lower-case identifier here. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresTarget {
  /** The URL handed to the driver, without dynatwin's own parameters. */
  readonly connectionString: string;
  /** The URL as messages show it: the password replaced by `***`. */
  readonly redacted: string;
  readonly schema: string;
}

/** Whether `text` names a PostgreSQL store (a `postgres://` or `postgresql://` URL). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(text);
}

/** The URL with its password replaced by `***` (the text itself when it does not parse). */
export function redactStoreUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return text.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** Parses a store URL; throws an Error whose message is fit for the user (no password) when it is not one. */
export function parsePostgresUrl(text: string): PostgresTarget {
  if (!isPostgresUrl(text)) throw new Error(`not a PostgreSQL URL (postgres://user:password@host:port/database): ${redactStoreUrl(text)}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`not a valid URL: ${redactStoreUrl(text)}`);
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) throw new Error(`the schema parameter must be a lower-case identifier of at most 63 characters (letters, digits, _): ${JSON.stringify(schema)}`);
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), redacted: redactStoreUrl(text), schema };
}
