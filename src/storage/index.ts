/**
 * The one place that picks a Storage implementation from configuration.
 */
import type { Durability } from './lmdb.js';
import { MemoryStorage } from './memory.js';
import type { Storage } from './storage.js';

export type StorageOptions =
  | { readonly kind: 'memory' }
  | { readonly kind: 'lmdb'; readonly path: string; readonly durability?: Durability };

export type { Durability } from './lmdb.js';
export type { Entry, RangeOptions, ReadView, Storage, StoredValue, WriteTransaction } from './storage.js';

/** Opens the configured store, creating the lmdb directory if it is missing. */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  switch (options.kind) {
    case 'memory':
      return new MemoryStorage();
    case 'lmdb': {
      // Loaded on demand so memory-only processes (most tests) never load lmdb's native addon.
      const { LmdbStorage } = await import('./lmdb.js');
      return LmdbStorage.open(options);
    }
  }
}
