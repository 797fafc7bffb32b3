/**
 * GET /dynatwin/tables/<table>/partitions: the partitions of a table and of each of its GSIs, what
 * the heat map draws. Each partition: id, hashRange [first, last] (hex of the 32-bit key hash it
 * owns), itemCount, sizeBytes, and its allocated readUnitsPerSecond / writeUnitsPerSecond.
 */
import type { PartitionView } from '../capacity/partitions.js';
import type { Engine } from '../engine/engine.js';
import { InspectionError, type InspectionRouter } from './inspection.js';

export interface PartitionsDocument {
  readonly table: string;
  readonly partitionModel: string;
  readonly partitions: readonly PartitionView[];
  readonly indexes: Readonly<Record<string, { readonly partitions: readonly PartitionView[] }>>;
}

export function partitionsDocument(engine: Engine, tableName: string): PartitionsDocument {
  const table = engine.catalog.get(tableName);
  if (table === undefined) throw new InspectionError(404, `table not found: ${tableName}`);
  const indexes: Record<string, { partitions: readonly PartitionView[] }> = {};
  // Live GSIs only: a DELETING one is no longer maintained (its counts would be stale) and has no
  // map after a restart (table-partitions.ts opens live GSIs only).
  for (const index of table.indexes.live) {
    const partitions = index.state.partitions;
    if (index.kind === 'global' && partitions !== undefined) indexes[index.name] = { partitions: partitions.map.views() };
  }
  return {
    table: table.name,
    partitionModel: table.partitions.map.policy.model,
    partitions: table.partitions.map.views(),
    indexes,
  };
}

export function registerPartitionRoutes(router: InspectionRouter, engine: Engine): void {
  router.get(/^\/dynatwin\/tables\/([^/]+)\/partitions\/?$/, (request) => ({ status: 200, body: partitionsDocument(engine, request.params[0]!) }));
}
