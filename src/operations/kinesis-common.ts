/**
 * Kinesis Data Streams destinations. dynatwin has no Kinesis, so no stream a destination could name
 * exists: DescribeKinesisStreamingDestination lists none, EnableKinesisStreamingDestination finds
 * no stream, and Disable/Update find no destination (texts and their sources: docs/CONFORMANCE.md).
 */
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { resourceNotFound } from '../errors.js';
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { shapes, type Member } from './shape.js';

export const kinesisMembers: Readonly<Record<string, Member>> = {
  TableName: tableNameOrArnMember,
  StreamArn: shapes.string({ required: true, lengthMin: 37, lengthMax: 1024 }),
  EnableKinesisStreamingConfiguration: shapes.structure('EnableKinesisStreamingConfiguration', {
    ApproximateCreationDateTimePrecision: shapes.string({ enumValues: ['MILLISECOND', 'MICROSECOND'] }),
  }),
};

export interface KinesisRequest {
  readonly reference: TableReference;
  readonly streamArn: string;
}

export function kinesisRequestOf(input: Record<string, unknown>): KinesisRequest {
  return { reference: tableReferenceOf(input.TableName as string), streamArn: input.StreamArn as string };
}

/** The table, or DynamoDB's not-found text for these operations. */
export function requireKinesisTable(engine: Engine, reference: TableReference): Table {
  const table = engine.catalog.get(reference.name);
  if (table === undefined || (reference.arn !== undefined && reference.arn !== table.record.arn)) {
    throw resourceNotFound(`Requested resource not found: Table: ${reference.name} not found`);
  }
  return table;
}
