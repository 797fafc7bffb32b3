/**
 * The partition calculator, unit level: the seed article 001 examples under the classic model,
 * the modern counts, size splits with their dilution, doubling on throughput increases, O(1)
 * lookup, and a persisted layout surviving a restart.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  HASH_SPACE,
  initialPartitionCount,
  PartitionMap,
  partitionsForThroughput,
  type MeasureRange,
  type PartitionPolicy,
  type Throughput,
} from '../src/capacity/partitions.js';
import { seededRandom } from './support/random.js';

const GB = 1024 ** 3;
const classic: PartitionPolicy = { model: 'classic', sizeLimitBytes: 10 * GB };
const modern: PartitionPolicy = { model: 'modern', sizeLimitBytes: 10 * GB };
const provisioned = (read: number, write: number): Throughput => ({ mode: 'provisioned', readUnitsPerSecond: read, writeUnitsPerSecond: write });
const nothing: MeasureRange = () => ({ itemCount: 0, sizeBytes: 0 });

describe('partition counts', () => {
  test('seed article 001 (classic): 5,000 RCU / 500 WCU → 3; 35 GB → 4; 8 GB with 5,000 / 500 → 3', () => {
    assert.equal(initialPartitionCount(classic, provisioned(5000, 500), 0), 3);
    assert.equal(initialPartitionCount(classic, provisioned(1, 1), 35 * GB), 4);
    assert.equal(initialPartitionCount(classic, provisioned(5000, 500), 8 * GB), 3);
  });

  test('the 2017 guide examples: 1,000/500 → 1, 1,000/1,000 → 2, 5,000/2,000 → 4', () => {
    assert.equal(partitionsForThroughput('classic', provisioned(1000, 500)), 1);
    assert.equal(partitionsForThroughput('classic', provisioned(1000, 1000)), 2);
    assert.equal(partitionsForThroughput('classic', provisioned(5000, 2000)), 4);
  });

  test('modern: independent ceilings, on-demand starts with 4', () => {
    assert.equal(partitionsForThroughput('modern', provisioned(5000, 500)), 2);
    assert.equal(partitionsForThroughput('modern', provisioned(3000, 1000)), 1);
    assert.equal(partitionsForThroughput('modern', provisioned(3001, 10)), 2);
    assert.equal(partitionsForThroughput('modern', { mode: 'on-demand' }), 4);
    assert.equal(initialPartitionCount(modern, { mode: 'on-demand' }, 0), 4);
  });
});

describe('partition map', () => {
  test('equal ranges tile the hash space and lookup finds the owner', () => {
    const map = PartitionMap.create(classic, provisioned(5000, 2000), 4);
    const views = map.views();
    assert.deepEqual(views.map((view) => view.hashRange), [
      ['00000000', '3fffffff'],
      ['40000000', '7fffffff'],
      ['80000000', 'bfffffff'],
      ['c0000000', 'ffffffff'],
    ]);
    assert.deepEqual(views.map((view) => view.readUnitsPerSecond), [1250, 1250, 1250, 1250]);
    assert.deepEqual(views.map((view) => view.writeUnitsPerSecond), [500, 500, 500, 500]);
    assert.equal(map.partitionOf(0).id, 0);
    assert.equal(map.partitionOf(0x3fffffff).id, 0);
    assert.equal(map.partitionOf(0x40000000).id, 1);
    assert.equal(map.partitionOf(HASH_SPACE - 1).id, 3);
  });

  test('a size split halves the hot partition share: 4 × 1,250/500 → three at 1,250/500 and two at 625/250', () => {
    const map = PartitionMap.create({ model: 'classic', sizeLimitBytes: 100 }, provisioned(5000, 2000), 4);
    const oversized = map.recordChange(0x10, 1, 150);
    assert.ok(oversized !== undefined);
    map.split(oversized, (start) => ({ itemCount: start === 0 ? 1 : 0, sizeBytes: start === 0 ? 150 : 0 }));
    const views = map.views();
    assert.equal(views.length, 5);
    assert.deepEqual(views.map((view) => view.readUnitsPerSecond), [625, 625, 1250, 1250, 1250]);
    assert.deepEqual(views.map((view) => view.writeUnitsPerSecond), [250, 250, 500, 500, 500]);
    assert.equal(map.partitionOf(0x10).id, 4);
    assert.equal(map.partitionOf(0x20000000).id, 5);
  });

  test('raising throughput past what the partitions serve doubles them; lowering never merges', () => {
    const map = PartitionMap.create(classic, provisioned(5000, 2000), 4);
    map.setThroughput(provisioned(8000, 2000), nothing);
    assert.equal(map.count, 8);
    assert.deepEqual(new Set(map.views().map((view) => view.readUnitsPerSecond)), new Set([1000]));
    assert.deepEqual(new Set(map.views().map((view) => view.writeUnitsPerSecond)), new Set([250]));
    map.setThroughput(provisioned(100, 100), nothing);
    assert.equal(map.count, 8);
    assert.deepEqual(new Set(map.views().map((view) => view.readUnitsPerSecond)), new Set([12.5]));
  });

  test('no partition is allocated more than its ceiling', () => {
    const map = PartitionMap.create(modern, provisioned(40000, 40000), 1);
    assert.deepEqual(map.views().map((view) => [view.readUnitsPerSecond, view.writeUnitsPerSecond]), [[3000, 1000]]);
  });

  test('lookup agrees with a linear search after random splits', () => {
    const random = seededRandom(7);
    const map = PartitionMap.create({ model: 'modern', sizeLimitBytes: 1 }, { mode: 'on-demand' }, 4);
    for (let splits = 0; splits < 200; splits++) {
      const hash = Math.floor(random() * HASH_SPACE);
      map.split(map.partitionOf(hash), nothing);
    }
    const layout = map.layout().partitions;
    for (let probe = 0; probe < 5000; probe++) {
      const hash = Math.floor(random() * HASH_SPACE);
      const owner = layout.find((partition) => hash >= partition.start && hash < partition.end)!;
      assert.equal(map.partitionOf(hash).id, owner.id);
    }
  });

  test('the layout survives a restart with counts re-measured', () => {
    const map = PartitionMap.create(classic, provisioned(1000, 1000), 2);
    map.split(map.partitionOf(0), nothing);
    const restored = PartitionMap.restore(classic, provisioned(1000, 1000), map.layout(), () => ({ itemCount: 3, sizeBytes: 30 }));
    assert.deepEqual(restored.layout(), map.layout());
    assert.deepEqual(restored.views().map((view) => view.itemCount), [3, 3, 3]);
  });

  test('splitOversized splits until every partition fits (a bulk load of 35 units at a 10-unit limit)', () => {
    const map = PartitionMap.create({ model: 'classic', sizeLimitBytes: 10 }, provisioned(1, 1), 1);
    // 35 units spread evenly over the hash space.
    const measure: MeasureRange = (start, end) => ({ itemCount: 0, sizeBytes: (35 * (end - start)) / HASH_SPACE });
    map.recordChange(0, 0, 35);
    map.splitOversized(measure);
    assert.equal(map.count, 4);
  });
});
