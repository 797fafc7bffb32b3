/**
 * UpdateContributorInsights, DescribeContributorInsights and ListContributorInsights through the
 * AWS SDK against a running dynatwin: shapes, validation texts, ResourceNotFound, statuses on the
 * manual clock, rule names, modes and paging.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeContributorInsightsCommand,
  DescribeTableCommand,
  ListContributorInsightsCommand,
  UpdateContributorInsightsCommand,
  UpdateTableCommand,
  type ContributorInsightsSummary,
  type CreateTableCommandInput,
  type DescribeContributorInsightsCommandInput,
  type ListContributorInsightsCommandInput,
  type UpdateContributorInsightsCommandInput,
  type UpdateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { callOperation } from './support/raw.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const VALIDATION = 'ValidationException';
const NOT_FOUND = 'ResourceNotFoundException';
const ARN_PREFIX = 'arn:aws:dynamodb:us-east-1:000000000000:table/';

/** A table keyed pk (+ sk), with a hash-only GSI `by-status` and, with a sort key, an LSI `by-date`. */
function tableInput(name: string, withSortKey: boolean): CreateTableCommandInput {
  return {
    TableName: name,
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'status', AttributeType: 'S' },
      ...(withSortKey
        ? [
            { AttributeName: 'sk', AttributeType: 'N' as const },
            { AttributeName: 'date', AttributeType: 'S' as const },
          ]
        : []),
    ],
    KeySchema: withSortKey
      ? [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ]
      : [{ AttributeName: 'pk', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [{ IndexName: 'by-status', KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
    LocalSecondaryIndexes: withSortKey
      ? [
          {
            IndexName: 'by-date',
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'date', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ]
      : undefined,
    BillingMode: 'PAY_PER_REQUEST',
  };
}

describe('Contributor Insights operations', () => {
  let twin: TwinClients;
  let clock: ManualClock;

  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    clock = twin.twin.clock as ManualClock;
  });
  after(() => twin.close());

  const update = (input: UpdateContributorInsightsCommandInput) => twin.client.send(new UpdateContributorInsightsCommand(input));
  const describeInsights = (input: DescribeContributorInsightsCommandInput) => twin.client.send(new DescribeContributorInsightsCommand(input));
  const list = (input: ListContributorInsightsCommandInput) => twin.client.send(new ListContributorInsightsCommand(input));

  async function createTable(stem: string, withSortKey: boolean): Promise<string> {
    const name = uniqueTableName(stem);
    await twin.client.send(new CreateTableCommand(tableInput(name, withSortKey)));
    return name;
  }

  async function expectRaw(operation: string, body: object, type: string, message: string): Promise<void> {
    const response = await callOperation(twin.twin.endpoint, operation, JSON.stringify(body));
    assert.equal(response.status, 400);
    assert.deepEqual(JSON.parse(response.text), { __type: type, message });
  }

  function summariesOf(summaries: ContributorInsightsSummary[] | undefined): string[] {
    return (summaries ?? []).map((summary) => `${summary.TableName}${summary.IndexName ? '/' + summary.IndexName : ''}:${summary.ContributorInsightsStatus}`);
  }

  describe('validation', () => {
    const coral = 'com.amazon.coral.validate#ValidationException';

    test('missing or invalid members, in the constraint phase', async () => {
      await expectRaw('UpdateContributorInsights', { ContributorInsightsAction: 'ENABLE' }, coral, "The parameter 'TableName' is required but was not present in the request");
      await expectRaw(
        'UpdateContributorInsights',
        { TableName: 'some-table' },
        coral,
        "1 validation error detected: Value null at 'contributorInsightsAction' failed to satisfy constraint: Member must not be null",
      );
      await expectRaw(
        'UpdateContributorInsights',
        { TableName: 'some-table', IndexName: 'a!', ContributorInsightsAction: 'TOGGLE', ContributorInsightsMode: 'ALL_KEYS' },
        coral,
        '4 validation errors detected: ' +
          "Value 'a!' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
          "Value 'a!' at 'indexName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
          "Value 'TOGGLE' at 'contributorInsightsAction' failed to satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]; " +
          "Value 'ALL_KEYS' at 'contributorInsightsMode' failed to satisfy constraint: Member must satisfy enum value set: [ACCESSED_AND_THROTTLED_KEYS, THROTTLED_KEYS]",
      );
      await expectRaw('DescribeContributorInsights', {}, coral, "The parameter 'TableName' is required but was not present in the request");
      await expectRaw(
        'DescribeContributorInsights',
        { TableName: 'ab' },
        coral,
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
      );
      await expectRaw(
        'ListContributorInsights',
        { MaxResults: 101 },
        coral,
        "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100",
      );
    });

    test('wrong JSON types are SerializationExceptions', async () => {
      const response = await callOperation(twin.twin.endpoint, 'ListContributorInsights', JSON.stringify({ MaxResults: 'ten' }));
      assert.deepEqual(JSON.parse(response.text), { __type: 'com.amazon.coral.service#SerializationException', Message: 'STRING_VALUE cannot be converted to Integer' });
    });

    test('a NextToken that is not one of ours', async () => {
      await expectDynamoError(list({ NextToken: 'not a token!' }), VALIDATION, 'Invalid NextToken provided');
      await expectDynamoError(list({ NextToken: Buffer.from('{"a":1}').toString('base64url') }), VALIDATION, 'Invalid NextToken provided');
    });
  });

  describe('ResourceNotFoundException', () => {
    test('a missing table, an unknown index and an LSI', async () => {
      const missing = uniqueTableName('ci-missing');
      await expectDynamoError(update({ TableName: missing, ContributorInsightsAction: 'ENABLE' }), NOT_FOUND, `Requested resource not found: Table: ${missing} not found`);
      await expectDynamoError(describeInsights({ TableName: missing }), NOT_FOUND, `Requested resource not found: Table: ${missing} not found`);
      await expectDynamoError(list({ TableName: missing }), NOT_FOUND, `Requested resource not found: Table: ${missing} not found`);
      const name = await createTable('ci-rnf', true);
      for (const index of ['ghost', 'by-date']) {
        const message = `Requested resource not found: Index: ${index} not found for table: ${name}`;
        await expectDynamoError(update({ TableName: name, IndexName: index, ContributorInsightsAction: 'ENABLE' }), NOT_FOUND, message);
        await expectDynamoError(describeInsights({ TableName: name, IndexName: index }), NOT_FOUND, message);
      }
    });

    test('an ARN of another account names no table', async () => {
      const name = await createTable('ci-arn', false);
      await expectDynamoError(
        describeInsights({ TableName: `arn:aws:dynamodb:us-east-1:111111111111:table/${name}` }),
        NOT_FOUND,
        `Requested resource not found: Table: ${name} not found`,
      );
    });
  });

  describe('lifecycle', () => {
    test('a table never configured is DISABLED and not listed', async () => {
      const name = await createTable('ci-fresh', false);
      assert.deepEqual(strip(await describeInsights({ TableName: name })), { TableName: name, ContributorInsightsStatus: 'DISABLED' });
      assert.deepEqual(strip(await list({ TableName: name })), { ContributorInsightsSummaries: [] });
      assert.deepEqual(strip(await update({ TableName: name, ContributorInsightsAction: 'DISABLE' })), { TableName: name, ContributorInsightsStatus: 'DISABLED' });
    });

    test('ENABLE → ENABLING, then ENABLED with four rules on a table with a sort key; DISABLE → DISABLING → DISABLED', async () => {
      const name = await createTable('ci-life', true);
      const enabledAtMs = clock.nowMs();
      assert.deepEqual(strip(await update({ TableName: name, ContributorInsightsAction: 'ENABLE' })), {
        TableName: name,
        ContributorInsightsStatus: 'ENABLING',
        ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
      });
      clock.advance(1_500);
      const described = strip(await describeInsights({ TableName: `${ARN_PREFIX}${name}` }));
      assert.deepEqual(described, {
        TableName: name,
        ContributorInsightsRuleList: ['PKC', 'SKC', 'PKT', 'SKT'].map((kind) => `DynamoDBContributorInsights-${kind}-${name}-${enabledAtMs}`),
        ContributorInsightsStatus: 'ENABLED',
        LastUpdateDateTime: new Date(enabledAtMs),
        ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
      });
      assert.deepEqual(summariesOf((await list({ TableName: name })).ContributorInsightsSummaries), [`${name}:ENABLED`]);

      assert.deepEqual(strip(await update({ TableName: name, ContributorInsightsAction: 'ENABLE' })), {
        TableName: name,
        ContributorInsightsStatus: 'ENABLED',
        ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
      });

      const disabledAtMs = clock.nowMs();
      assert.deepEqual(strip(await update({ TableName: name, ContributorInsightsAction: 'DISABLE' })), {
        TableName: name,
        ContributorInsightsStatus: 'DISABLING',
        ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
      });
      assert.deepEqual(strip(await describeInsights({ TableName: name })), {
        TableName: name,
        ContributorInsightsStatus: 'DISABLED',
        LastUpdateDateTime: new Date(disabledAtMs),
        ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
      });
      assert.deepEqual(strip(await list({ TableName: name })), { ContributorInsightsSummaries: [] });
    });

    test('a GSI has its own state and hash-only rules named after table and index; THROTTLED_KEYS keeps PKT', async () => {
      const name = await createTable('ci-gsi', true);
      const atMs = clock.nowMs();
      assert.deepEqual(strip(await update({ TableName: name, IndexName: 'by-status', ContributorInsightsAction: 'ENABLE' })), {
        TableName: name,
        IndexName: 'by-status',
        ContributorInsightsStatus: 'ENABLING',
        ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
      });
      const described = await describeInsights({ TableName: name, IndexName: 'by-status' });
      assert.equal(described.IndexName, 'by-status');
      assert.deepEqual(described.ContributorInsightsRuleList, [
        `DynamoDBContributorInsights-PKC-${name}-by-status-${atMs}`,
        `DynamoDBContributorInsights-PKT-${name}-by-status-${atMs}`,
      ]);
      assert.equal((await describeInsights({ TableName: name })).ContributorInsightsStatus, 'DISABLED', 'the table is separate');

      clock.advance(10);
      const changed = await update({ TableName: name, IndexName: 'by-status', ContributorInsightsAction: 'ENABLE', ContributorInsightsMode: 'THROTTLED_KEYS' });
      assert.equal(changed.ContributorInsightsStatus, 'ENABLING');
      const throttledOnly = await describeInsights({ TableName: name, IndexName: 'by-status' });
      assert.equal(throttledOnly.ContributorInsightsMode, 'THROTTLED_KEYS');
      assert.deepEqual(throttledOnly.ContributorInsightsRuleList, [`DynamoDBContributorInsights-PKT-${name}-by-status-${atMs}`]);
    });

    test('ListContributorInsights pages a table before its GSIs, MaxResults at a time, with no empty last page', async () => {
      const name = await createTable('ci-list', false);
      await update({ TableName: name, IndexName: 'by-status', ContributorInsightsAction: 'ENABLE' });
      await update({ TableName: name, ContributorInsightsAction: 'ENABLE', ContributorInsightsMode: 'THROTTLED_KEYS' });
      const first = await list({ TableName: name, MaxResults: 1 });
      assert.deepEqual(first.ContributorInsightsSummaries, [{ TableName: name, ContributorInsightsStatus: 'ENABLED', ContributorInsightsMode: 'THROTTLED_KEYS' }]);
      assert.ok(first.NextToken !== undefined);
      const second = await list({ TableName: name, MaxResults: 1, NextToken: first.NextToken });
      assert.deepEqual(second.ContributorInsightsSummaries, [
        { TableName: name, IndexName: 'by-status', ContributorInsightsStatus: 'ENABLED', ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS' },
      ]);
      assert.equal(second.NextToken, undefined);

      // Account-wide: every enabled resource of every table, in table-name order, paged to the end.
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const page = await list({ MaxResults: 2, NextToken: token });
        assert.ok((page.ContributorInsightsSummaries ?? []).length > 0, 'no empty pages');
        seen.push(...summariesOf(page.ContributorInsightsSummaries));
        token = page.NextToken;
      } while (token !== undefined);
      const all = summariesOf((await list({})).ContributorInsightsSummaries);
      assert.deepEqual(seen, all);
      assert.ok(all.includes(`${name}:ENABLED`) && all.includes(`${name}/by-status:ENABLED`));
      const tables = all.map((entry) => entry.split(/[/:]/)[0]!);
      assert.deepEqual(tables, [...tables].sort());
    });

    test('a deleted and recreated GSI starts DISABLED, with no metrics left from before', async () => {
      const name = await createTable('ci-gsi-recreate', false);
      await update({ TableName: name, IndexName: 'by-status', ContributorInsightsAction: 'ENABLE' });
      await twin.documentClient.send(new PutCommand({ TableName: name, Item: { pk: 'a', status: 'NEW' } }));
      const series = async (): Promise<number> => {
        const answer = await fetch(`${twin.twin.endpoint}/dynatwin/metrics?table=${name}&index=by-status&metric=ConsumedWriteCapacityUnits&period=60`);
        assert.equal(answer.status, 200);
        const body = (await answer.json()) as { metrics: { datapoints: unknown[] }[] };
        return body.metrics.reduce((sum, metric) => sum + metric.datapoints.length, 0);
      };
      assert.equal(await series(), 1, 'the GSI write is in its metrics');

      const indexUpdate = (change: UpdateTableCommandInput['GlobalSecondaryIndexUpdates']) =>
        twin.client.send(new UpdateTableCommand({ TableName: name, AttributeDefinitions: [{ AttributeName: 'status', AttributeType: 'S' }], GlobalSecondaryIndexUpdates: change }));
      await indexUpdate([{ Delete: { IndexName: 'by-status' } }]);
      await expectDynamoError(describeInsights({ TableName: name, IndexName: 'by-status' }), NOT_FOUND);
      assert.equal(await series(), 0, 'the deleted GSI has no metrics');
      // The removal runs in the background; the index is gone once DescribeTable no longer lists it.
      for (let polls = 0; ; polls++) {
        const described = await twin.client.send(new DescribeTableCommand({ TableName: name }));
        if ((described.Table?.GlobalSecondaryIndexes ?? []).length === 0) break;
        assert.ok(polls < 1000, 'the GSI removal finished');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await indexUpdate([{ Create: { IndexName: 'by-status', KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }]);
      assert.equal((await describeInsights({ TableName: name, IndexName: 'by-status' })).ContributorInsightsStatus, 'DISABLED');
      assert.equal(await series(), 0, 'the new GSI starts without the old one\'s metrics');
      assert.deepEqual(summariesOf((await list({ TableName: name })).ContributorInsightsSummaries), []);
    });

    test('a deleted and recreated table starts DISABLED', async () => {
      const name = await createTable('ci-recreate', false);
      await update({ TableName: name, ContributorInsightsAction: 'ENABLE' });
      await twin.client.send(new DeleteTableCommand({ TableName: name }));
      await expectDynamoError(describeInsights({ TableName: name }), NOT_FOUND);
      await twin.client.send(new CreateTableCommand(tableInput(name, false)));
      assert.deepEqual(strip(await describeInsights({ TableName: name })), { TableName: name, ContributorInsightsStatus: 'DISABLED' });
      assert.deepEqual(strip(await list({ TableName: name })), { ContributorInsightsSummaries: [] });
    });
  });
});

describe('Contributor Insights on a table being created', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual', tableCreateDelayMs: 5_000 });
  });
  after(() => twin.close());

  test('ENABLE waits for ACTIVE; Describe and DISABLE do not', async () => {
    const name = uniqueTableName('ci-creating');
    await twin.client.send(new CreateTableCommand(tableInput(name, false)));
    await expectDynamoError(
      twin.client.send(new UpdateContributorInsightsCommand({ TableName: name, ContributorInsightsAction: 'ENABLE' })),
      VALIDATION,
      'Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights.',
    );
    const described = await twin.client.send(new DescribeContributorInsightsCommand({ TableName: name }));
    assert.equal(described.ContributorInsightsStatus, 'DISABLED');
    const disabled = await twin.client.send(new UpdateContributorInsightsCommand({ TableName: name, ContributorInsightsAction: 'DISABLE' }));
    assert.equal(disabled.ContributorInsightsStatus, 'DISABLED');
    (twin.twin.clock as ManualClock).advance(5_000);
    const enabled = await twin.client.send(new UpdateContributorInsightsCommand({ TableName: name, ContributorInsightsAction: 'ENABLE' }));
    assert.equal(enabled.ContributorInsightsStatus, 'ENABLING');
  });
});

/** The response without the SDK's $metadata. */
function strip<T extends { $metadata?: unknown }>(response: T): Omit<T, '$metadata'> {
  const { $metadata: _metadata, ...rest } = response;
  return rest;
}
