/**
 * UpdateTimeToLive: turns TTL on (naming the attribute) or off. The change is immediate: the
 * status goes straight to ENABLED or DISABLED, without DynamoDB's ENABLING/DISABLING phase or
 * its one-hour cooldown between changes. Expired items are deleted by the engine's TTL sweeps
 * (engine/ttl.ts), which read the table record each pass and chunk: once DISABLED, nothing more
 * is deleted.
 */
import type { TimeToLiveRecord } from '../engine/table.js';
import { validationError } from '../errors.js';
import { requireTable, tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

interface UpdateTimeToLiveRequest {
  readonly reference: TableReference;
  readonly enabled: boolean;
  readonly attributeName: string;
}

export const updateTimeToLiveOperation = defineOperation<UpdateTimeToLiveRequest>({
  name: 'UpdateTimeToLive',
  members: {
    TableName: tableNameOrArnMember,
    TimeToLiveSpecification: shapes.structure(
      'TimeToLiveSpecification',
      {
        Enabled: shapes.boolean({ notNull: true }),
        AttributeName: shapes.string({ notNull: true, lengthMin: 1, lengthMax: 255 }),
      },
      { notNull: true },
    ),
  },

  validate(input) {
    const specification = input.TimeToLiveSpecification as { Enabled: boolean; AttributeName: string };
    return {
      reference: tableReferenceOf(input.TableName as string),
      enabled: specification.Enabled,
      attributeName: specification.AttributeName,
    };
  },

  async execute(engine, request) {
    const table = requireTable(engine, request.reference);
    await engine.catalog.update(table.name, (current) => ({
      ...current.record,
      timeToLive: nextTimeToLive(current.record.timeToLive, request),
    }));
    return { TimeToLiveSpecification: { Enabled: request.enabled, AttributeName: request.attributeName } };
  },
});

/** DynamoDB refuses a change that changes nothing, and a switch of attribute while enabled. */
function nextTimeToLive(current: TimeToLiveRecord, request: UpdateTimeToLiveRequest): TimeToLiveRecord {
  if (current.status === 'ENABLED' && current.attributeName !== request.attributeName) {
    throw validationError(`TimeToLive is active on a different AttributeName: current AttributeName is ${current.attributeName}`);
  }
  if (request.enabled) {
    if (current.status === 'ENABLED') throw validationError('TimeToLive is already enabled');
    return { status: 'ENABLED', attributeName: request.attributeName };
  }
  if (current.status === 'DISABLED') throw validationError('TimeToLive is already disabled');
  return { status: 'DISABLED' };
}
