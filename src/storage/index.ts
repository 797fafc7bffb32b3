/**
 * The one place that picks a Storage implementation from configuration.
 */
import type { Durability } from './lmdb.js';
import type { LoggedStorageOptions } from './logged.js';
import { MemoryStorage } from './memory.js';
import type { Storage } from './storage.js';

export type StorageOptions =
  | { readonly kind: 'memory' }
  | { readonly kind: 'lmdb'; readonly path: string; readonly durability?: Durability }
  | ({ readonly kind: 'logged' } & LoggedStorageOptions);

export type { Durability } from './lmdb.js';
export type { Entry, RangeOptions, ReadView, Storage, StoredValue, WriteTransaction } from './storage.js';

/**
 * Opens the configured store, creating the data directory if it is missing. 'logged' is the
 * durable default (a write-ahead log over LMDB, logged.ts); plain 'lmdb' syncs inside every
 * commit and remains for the benchmark's no-flush ceiling.
 */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  switch (options.kind) {
    case 'memory':
      return new MemoryStorage();
    case 'lmdb': {
      // Loaded on demand so memory-only processes (most tests) never load lmdb's native addon.
      const { LmdbStorage } = await import('./lmdb.js');
      return LmdbStorage.open(options);
    }
    case 'logged': {
      const { LoggedStorage } = await import('./logged.js');
      return LoggedStorage.open(options);
    }
  }
}
