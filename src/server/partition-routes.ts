/**
 * GET /dynatwin/tables/<table>/partitions: the partitions of a table and of each of its GSIs, what
 * the heat map draws. Each partition: id, hashRange [first, last] (hex of the 32-bit key hash it
 * owns), itemCount, sizeBytes, its allocated readUnitsPerSecond / writeUnitsPerSecond, and what
 * admission saw on the injected clock: consumed read and write units over the last second and the
 * last minute, the burst bank's balance, throttle events, and (GSIs) index writes waiting in its
 * back-pressure backlog.
 */
import type { PartitionCapacityStats } from '../capacity/admission.js';
import type { PartitionView } from '../capacity/partitions.js';
import type { Engine } from '../engine/engine.js';
import type { ResourcePartitions } from '../engine/partition-tracker.js';
import { InspectionError, type InspectionRouter } from './inspection.js';
import { setOwn } from '../model/own-members.js';

export interface PartitionDocument extends PartitionView {
  readonly consumedReadUnitsLastSecond: number;
  readonly consumedReadUnitsLastMinute: number;
  readonly consumedWriteUnitsLastSecond: number;
  readonly consumedWriteUnitsLastMinute: number;
  readonly burstReadUnits: number;
  readonly burstWriteUnits: number;
  readonly readThrottleEvents: number;
  readonly writeThrottleEvents: number;
  readonly backlogWriteUnits: number;
}

export interface PartitionsDocument {
  readonly table: string;
  readonly partitionModel: string;
  readonly capacity: 'enforce' | 'off';
  readonly partitions: readonly PartitionDocument[];
  readonly indexes: Readonly<Record<string, { readonly partitions: readonly PartitionDocument[] }>>;
}

export function partitionsDocument(engine: Engine, tableName: string): PartitionsDocument {
  const table = engine.catalog.get(tableName);
  if (table === undefined) throw new InspectionError(404, `table not found: ${tableName}`);
  const nowMs = engine.clock.nowMs();
  const indexes: Record<string, { partitions: readonly PartitionDocument[] }> = {};
  // Live GSIs only: a DELETING one is no longer maintained (its counts would be stale) and has no
  // map after a restart (table-partitions.ts opens live GSIs only).
  for (const index of table.indexes.live) {
    const partitions = index.state.partitions;
    if (index.kind === 'global' && partitions !== undefined) setOwn(indexes, index.name, { partitions: documentsOf(partitions, nowMs) });
  }
  return {
    table: table.name,
    partitionModel: table.partitions.map.policy.model,
    capacity: engine.capacityEnforced ? 'enforce' : 'off',
    partitions: documentsOf(table.partitions, nowMs),
    indexes,
  };
}

function documentsOf(partitions: ResourcePartitions, nowMs: number): PartitionDocument[] {
  return partitions.map.views().map((view) => {
    // A partition no request has touched yet has a full bank and nothing consumed.
    const stats = partitions.hasCapacity ? partitions.capacityAt(parseInt(view.hashRange[0], 16), nowMs).stats(nowMs) : undefined;
    return { ...view, ...figuresOf(stats, view) };
  });
}

/**
 * Units to a tenth: the buckets refill continuously, so a balance carries float noise
 * (109786.79999988757) that says nothing a tenth of a unit does not; a unit is charged in halves.
 */
function tenths(units: number): number {
  return Math.round(units * 10) / 10;
}

function figuresOf(stats: PartitionCapacityStats | undefined, view: PartitionView): Omit<PartitionDocument, keyof PartitionView> {
  return {
    consumedReadUnitsLastSecond: tenths(stats?.read.consumedUnitsLastSecond ?? 0),
    consumedReadUnitsLastMinute: tenths(stats?.read.consumedUnitsLastMinute ?? 0),
    consumedWriteUnitsLastSecond: tenths(stats?.write.consumedUnitsLastSecond ?? 0),
    consumedWriteUnitsLastMinute: tenths(stats?.write.consumedUnitsLastMinute ?? 0),
    burstReadUnits: tenths(stats?.read.burstBalanceUnits ?? view.readUnitsPerSecond * 300),
    burstWriteUnits: tenths(stats?.write.burstBalanceUnits ?? view.writeUnitsPerSecond * 300),
    readThrottleEvents: stats?.read.throttleEvents ?? 0,
    writeThrottleEvents: stats?.write.throttleEvents ?? 0,
    backlogWriteUnits: tenths(stats?.backlogWriteUnits ?? 0),
  };
}

export function registerPartitionRoutes(router: InspectionRouter, engine: Engine): void {
  router.get(/^\/dynatwin\/tables\/([^/]+)\/partitions\/?$/, (request) => ({ status: 200, body: partitionsDocument(engine, request.params[0]!) }));
}
