/**
 * The worker thread of the PostgreSQL store: it owns the one connection the store uses and runs
 * each request the main thread sends (postgres-protocol.ts), one at a time, then posts the answer
 * and wakes the main thread, which waits for it (postgres-bridge.ts).
 *
 * A broken connection is dropped; the next request connects again (bounded by CONNECT_TIMEOUT_MS),
 * so the store reconnects by itself once the database is back. A failure inside a transaction
 * rolls it back before it is answered: the connection is always left outside any transaction.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';
import { SQLSTATE, type BridgeReply, type BridgeRequest, type DatabaseFailure, type LifecycleRequest, type Row, type WorkerSettings } from './postgres-protocol.js';
import { migrationFrom, quoted, SCHEMA_VERSION } from './postgres-schema.js';

/** How long a (re)connection may take before the request fails. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A statement that runs longer is cancelled (a lock wait included): nothing may hold the main thread longer. */
const STATEMENT_TIMEOUT_MS = 20_000;

interface Startup {
  readonly settings: WorkerSettings;
  readonly port: MessagePort;
}

class Connection {
  readonly #settings: WorkerSettings;
  readonly #table: string;
  #client: pg.Client | undefined;
  #inTransaction = false;

  constructor(settings: WorkerSettings) {
    this.#settings = settings;
    this.#table = `${quoted(settings.schema)}.kv`;
  }

  async #connected(): Promise<pg.Client> {
    if (this.#client !== undefined) return this.#client;
    const client = new pg.Client({ connectionString: this.#settings.connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, statement_timeout: STATEMENT_TIMEOUT_MS });
    // An error outside a query (the server went away while idle): drop the connection, reconnect on the next request.
    client.on('error', () => {
      if (this.#client === client) this.#drop();
    });
    await client.connect();
    // The literals of the simple queries (byteaLiteral, textLiteral) rely on it.
    await client.query('SET standard_conforming_strings = on');
    this.#client = client;
    this.#inTransaction = false;
    return client;
  }

  #drop(): void {
    const client = this.#client;
    this.#client = undefined;
    this.#inTransaction = false;
    client?.end().catch(() => {});
  }

  /** Creates the schema or migrates it to SCHEMA_VERSION; refuses a newer one. */
  async prepareSchema(): Promise<void> {
    const client = await this.#connected();
    const schema = quoted(this.#settings.schema);
    await client.query('BEGIN');
    try {
      // Two dynatwin processes starting on one database at once: one creates, the other waits.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dynatwin schema ${this.#settings.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.meta (name text PRIMARY KEY, value text NOT NULL)`);
      const found = await client.query<{ value: string }>(`SELECT value FROM ${schema}.meta WHERE name = 'schema_version'`);
      const version = found.rows.length === 0 ? 0 : Number(found.rows[0]!.value);
      if (!Number.isSafeInteger(version) || version < 0) throw new Error(`the schema "${this.#settings.schema}" has an unreadable version: ${JSON.stringify(found.rows[0]?.value)}`);
      if (version > SCHEMA_VERSION) {
        throw new Error(`the schema "${this.#settings.schema}" was written by a newer dynatwin (schema version ${version}; this one knows up to ${SCHEMA_VERSION}): upgrade dynatwin`);
      }
      for (let step = version; step < SCHEMA_VERSION; step++) await client.query(migrationFrom(step, this.#settings.schema));
      await client.query(`INSERT INTO ${schema}.meta (name, value) VALUES ('schema_version', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [String(SCHEMA_VERSION)]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  async run(request: BridgeRequest): Promise<{ rows: readonly Row[]; held?: number }> {
    const client = await this.#connected();
    switch (request.op) {
      case 'get':
        if (request.inTransaction) await this.#begin(client);
        return { rows: await this.#get(client, request.keys) };
      case 'range':
        if (request.inTransaction) await this.#begin(client);
        return { rows: await this.#range(client, request) };
      case 'lock': {
        // One round trip: BEGIN (when the write has not begun) and the lock-then-read, as one simple query.
        const statement = `SELECT k, v, held FROM ${quoted(this.#settings.schema)}.lock_read(${intArray(request.lockIds, 0)}, ${intArray(request.lockIds, 1)}, ${request.fail}, ${byteaArray(request.keys)})`;
        const results = await this.#simple(client, this.#inTransaction ? statement : `BEGIN; ${statement}`);
        this.#inTransaction = true;
        const rows = results[results.length - 1]!.rows as { k: Buffer | null; v: string | null; held: number }[];
        if (rows.length === 1 && rows[0]!.held !== 0) return { rows: [], held: rows[0]!.held - 1 };
        return { rows: rows.map((row) => [row.k!, row.v!] as const) };
      }
      case 'commit':
        await this.#commit(client, request.putKeys, request.putValues, request.removeKeys);
        return { rows: [] };
      case 'rollback':
        if (this.#inTransaction) {
          this.#inTransaction = false;
          await client.query('ROLLBACK');
        }
        return { rows: [] };
    }
  }

  async #begin(client: pg.Client): Promise<void> {
    if (this.#inTransaction) return;
    await client.query('BEGIN');
    this.#inTransaction = true;
  }

  async #get(client: pg.Client, keys: readonly Uint8Array[]): Promise<Row[]> {
    if (keys.length === 1) {
      const key = asBuffer(keys[0]!);
      const result = await client.query({ name: `get1-${this.#settings.schema}`, text: `SELECT v FROM ${this.#table} WHERE k = $1`, values: [key], rowMode: 'array' });
      return result.rows.length === 0 ? [] : [[key, result.rows[0]![0] as string]];
    }
    const result = await client.query({ name: `getn-${this.#settings.schema}`, text: `SELECT k, v FROM ${this.#table} WHERE k = ANY($1::bytea[])`, values: [keys.map(asBuffer)], rowMode: 'array' });
    return result.rows.map((row) => [row[0] as Buffer, row[1] as string] as const);
  }

  async #range(client: pg.Client, request: Extract<BridgeRequest, { op: 'range' }>): Promise<Row[]> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    const bound = (operator: string, key: Uint8Array): void => {
      values.push(asBuffer(key));
      conditions.push(`k ${operator} $${values.length}`);
    };
    if (request.reverse) {
      if (request.after !== undefined) bound('<', request.after);
      else if (request.end !== undefined) bound('<', request.end);
      if (request.start !== undefined) bound('>=', request.start);
    } else {
      if (request.after !== undefined) bound('>', request.after);
      else if (request.start !== undefined) bound('>=', request.start);
      if (request.end !== undefined) bound('<', request.end);
    }
    values.push(request.limit);
    const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
    const text = `SELECT k, v FROM ${this.#table}${where} ORDER BY k${request.reverse ? ' DESC' : ''} LIMIT $${values.length}`;
    const result = await client.query({ name: `range-${this.#settings.schema}-${request.reverse ? 'r' : 'f'}-${conditions.map((c) => c.slice(2, 4).trim()).join('')}`, text, values, rowMode: 'array' });
    return result.rows.map((row) => [row[0] as Buffer, row[1] as string] as const);
  }

  /** The buffered puts and removes and the COMMIT, in one simple query (one round trip; one implicit transaction when none was begun). */
  async #commit(client: pg.Client, putKeys: readonly Uint8Array[], putValues: readonly string[], removeKeys: readonly Uint8Array[]): Promise<void> {
    const statements: string[] = [];
    if (putKeys.length > 0) {
      const rows = putKeys.map((key, index) => `(${byteaLiteral(key)}, ${textLiteral(putValues[index]!)})`);
      statements.push(`INSERT INTO ${this.#table} (k, v) VALUES ${rows.join(', ')} ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`);
    }
    if (removeKeys.length > 0) statements.push(`DELETE FROM ${this.#table} WHERE k = ANY (${byteaArray(removeKeys)})`);
    if (this.#inTransaction) statements.push('COMMIT');
    if (statements.length === 0) return;
    // A statement that fails skips the rest, COMMIT included, and leaves a begun transaction
    // aborted: it stays marked open until the query succeeds, so recover() rolls it back (after an
    // implicit transaction, that ROLLBACK only draws a warning).
    this.#inTransaction = true;
    await this.#simple(client, statements.join('; '));
    this.#inTransaction = false;
  }

  /** A query of several statements, with no parameters (every value inlined as a literal), as pg's simple protocol runs it. */
  async #simple(client: pg.Client, text: string): Promise<pg.QueryResult[]> {
    const result = (await client.query(text)) as pg.QueryResult | pg.QueryResult[];
    return Array.isArray(result) ? result : [result];
  }

  /** After a failed request: a transaction left open is rolled back; a broken connection is dropped. */
  async recover(failure: DatabaseFailure): Promise<void> {
    if (failure.kind === 'connection') {
      this.#drop();
      return;
    }
    if (!this.#inTransaction) return;
    this.#inTransaction = false;
    try {
      await this.#client?.query('ROLLBACK');
    } catch {
      this.#drop();
    }
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}

/**
 * Literals for the simple queries. Safe by construction: bytea as hex digits, integers as
 * integers, text with its quotes doubled under standard_conforming_strings (set on every
 * connection, so a backslash is an ordinary character). JSON text holds no NUL byte (JSON.stringify
 * escapes control characters), which a PostgreSQL text value could not hold.
 */
function byteaLiteral(key: Uint8Array): string {
  return `'\\x${asBuffer(key).toString('hex')}'::bytea`;
}

function byteaArray(keys: readonly Uint8Array[]): string {
  return keys.length === 0 ? `'{}'::bytea[]` : `ARRAY[${keys.map(byteaLiteral).join(', ')}]`;
}

function intArray(ids: readonly (readonly [number, number])[], part: 0 | 1): string {
  return `ARRAY[${ids.map((id) => String(id[part] | 0)).join(', ')}]::int[]`;
}

function textLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function asBuffer(key: Uint8Array): Buffer {
  return Buffer.isBuffer(key) ? key : Buffer.from(key.buffer, key.byteOffset, key.byteLength);
}

/** Sorts a database or socket error into what the store needs to tell apart. */
export function classify(error: unknown): DatabaseFailure {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === SQLSTATE.deadlock || code === SQLSTATE.lockTimeout) return { kind: 'deadlock', code, message };
  if (code === SQLSTATE.diskFull || code === SQLSTATE.outOfMemory) return { kind: 'full', code, message };
  const connectionCode = code.startsWith('08') || code === SQLSTATE.adminShutdown || code === SQLSTATE.crashShutdown || code === SQLSTATE.cannotConnectNow || /^E[A-Z]+$/.test(code);
  if (connectionCode || code === '' && /connection|terminated|timeout|socket|ECONN/i.test(message)) return { kind: 'connection', code: code || 'CONNECTION', message };
  return { kind: 'other', code, message };
}

function isLifecycle(message: BridgeRequest | LifecycleRequest): message is LifecycleRequest {
  return message.op === 'open' || message.op === 'close';
}

function serve(startup: Startup): void {
  const { settings, port } = startup;
  const signal = new Int32Array(settings.signal);
  const connection = new Connection(settings);
  const answer = (reply: BridgeReply): void => {
    port.postMessage(reply);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  // Requests are answered strictly one after another (the main thread sends the next only after the answer).
  let queue = Promise.resolve();
  port.on('message', (message: BridgeRequest | LifecycleRequest) => {
    queue = queue.then(async () => {
      try {
        if (message.op === 'open') await connection.prepareSchema();
        else if (message.op === 'close') await connection.close();
        const result = isLifecycle(message) ? { rows: [] } : await connection.run(message);
        answer({ id: message.id, ok: true, rows: result.rows, ...(result.held === undefined ? {} : { held: result.held }) });
      } catch (error) {
        const failure = classify(error);
        await connection.recover(failure);
        answer({ id: message.id, ok: false, failure });
      }
    });
  });
}

if (parentPort !== null) {
  const data = workerData as { settings: WorkerSettings; port: MessagePort };
  serve({ settings: data.settings, port: data.port });
}
