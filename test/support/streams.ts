/**
 * Test support for DynamoDB Streams: a real `@aws-sdk/client-dynamodb-streams` client pointed at a
 * twin, and a reader that drains a stream the way a consumer must (every parent shard before its
 * children), collecting every record.
 */
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
  type StreamDescription,
} from '@aws-sdk/client-dynamodb-streams';

export function streamsClient(endpoint: string): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
}

/** Every shard of a stream, all DescribeStream pages. */
export async function describeAll(client: DynamoDBStreamsClient, streamArn: string): Promise<{ description: StreamDescription; shards: Shard[] }> {
  const shards: Shard[] = [];
  let description: StreamDescription | undefined;
  let start: string | undefined;
  do {
    const page = await client.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
    description = page.StreamDescription!;
    shards.push(...(description.Shards ?? []));
    start = description.LastEvaluatedShardId;
  } while (start !== undefined);
  return { description, shards };
}

/** Reads one shard from TRIM_HORIZON until it answers no records (open) or no iterator (closed, drained). */
export async function readShard(client: DynamoDBStreamsClient, streamArn: string, shardId: string, limit?: number): Promise<_Record[]> {
  const records: _Record[] = [];
  let iterator = (await client.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
  for (let calls = 0; iterator !== undefined; calls++) {
    if (calls > 100_000) throw new Error('shard never drained');
    const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
    records.push(...(page.Records ?? []));
    if ((page.Records ?? []).length === 0) break;
    iterator = page.NextShardIterator;
  }
  return records;
}

/** Every record of the stream, parents read before their children (DynamoDB's rule for readers). */
export async function readStream(client: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
  const { shards } = await describeAll(client, streamArn);
  const done = new Set<string>();
  const records: _Record[] = [];
  const known = new Set(shards.map((shard) => shard.ShardId!));
  while (done.size < shards.length) {
    const ready = shards.filter((shard) => !done.has(shard.ShardId!) && (shard.ParentShardId === undefined || !known.has(shard.ParentShardId) || done.has(shard.ParentShardId)));
    if (ready.length === 0) throw new Error('shard lineage has a cycle');
    for (const shard of ready) {
      records.push(...(await readShard(client, streamArn, shard.ShardId!)));
      done.add(shard.ShardId!);
    }
  }
  return records;
}
