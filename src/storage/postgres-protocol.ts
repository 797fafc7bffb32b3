/**
 * The messages between the PostgreSQL store (main thread, postgres.ts) and the worker thread that
 * talks to the database (postgres-worker.ts). One request is in flight at a time: the main thread
 * sends it and waits (postgres-bridge.ts) for the answer carrying the same id.
 */

/** A key and its stored JSON text, as a read returns them. */
export type Row = readonly [key: Uint8Array, json: string];

export type BridgeRequest =
  /** The values of `keys` (absent keys are left out). */
  | { readonly id: number; readonly op: 'get'; readonly keys: readonly Uint8Array[]; readonly inTransaction: boolean }
  /** Up to `limit` rows with start <= key < end (and past `after` in the walk's direction), in byte order or reverse. */
  | {
      readonly id: number;
      readonly op: 'range';
      readonly start: Uint8Array | undefined;
      readonly end: Uint8Array | undefined;
      readonly after: Uint8Array | undefined;
      readonly reverse: boolean;
      readonly limit: number;
      readonly inTransaction: boolean;
    }
  /**
   * Locks the keys (their lock ids, sorted, in that order) for the rest of the transaction, then
   * reads them. `fail`: a lock another transaction holds is not waited for; the answer names it.
   */
  | { readonly id: number; readonly op: 'lock'; readonly keys: readonly Uint8Array[]; readonly lockIds: readonly (readonly [number, number])[]; readonly fail: boolean }
  /** Applies the write's puts and removes and commits its transaction (begun by an earlier request, or now). */
  | { readonly id: number; readonly op: 'commit'; readonly putKeys: readonly Uint8Array[]; readonly putValues: readonly string[]; readonly removeKeys: readonly Uint8Array[] }
  /** Ends the open transaction without applying anything (a write that threw). */
  | { readonly id: number; readonly op: 'rollback' };

/** The two requests the store awaits instead of waiting for: the schema made ready at open, the connection ended at close. */
export type LifecycleRequest = { readonly id: number; readonly op: 'open' | 'close' };

export type BridgeReply =
  | { readonly id: number; readonly ok: true; readonly rows: readonly Row[]; readonly held?: number }
  | { readonly id: number; readonly ok: false; readonly failure: DatabaseFailure };

/** A failure the worker met, classified for the store (postgres.ts decides what the client sees). */
export interface DatabaseFailure {
  /**
   * connection: no connection or it broke (outcome of a commit unknown); deadlock: the database
   * aborted the transaction to break a lock cycle; full: out of disk space; other: anything else.
   */
  readonly kind: 'connection' | 'deadlock' | 'full' | 'other';
  /** PostgreSQL's SQLSTATE or Node's error code, when there was one. */
  readonly code: string;
  readonly message: string;
}

/** What the worker is started with. */
export interface WorkerSettings {
  readonly connectionString: string;
  readonly schema: string;
  /** Int32Array view over this: [0] is set to 1 and notified when an answer was posted. */
  readonly signal: SharedArrayBuffer;
}

/** SQLSTATEs the store tells apart (PostgreSQL's appendix A). */
export const SQLSTATE = {
  deadlock: '40P01',
  serialization: '40001',
  diskFull: '53100',
  outOfMemory: '53200',
  lockTimeout: '55P03',
  adminShutdown: '57P01',
  crashShutdown: '57P02',
  cannotConnectNow: '57P03',
} as const;
