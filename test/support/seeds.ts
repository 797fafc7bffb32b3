/**
 * The seed articles' table definitions, for every suite that replays one. Seed article 000:
 * table-def.json (an on-demand table `test` whose GSI `gsi-status` keys on the two-valued `status`)
 * and better-table-def.json (the sparse fix: table `better-table`, GSI `gsi-un-used-id` keyed by
 * the id of unused items only). Each call answers a fresh object, so no suite sees another's edits.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { attributes, globalIndex, keySchema } from './tables.js';

/** Names a suite may change in the article's design, to fit the items or indexes it already has. */
export interface SeedArticleNames {
  /** The table's hash key (S); `id` in the article. */
  readonly key?: string;
  /** The GSI on `status`; `gsi-status` in the article. */
  readonly index?: string;
}

/** Seed article 000's table-def.json; suites sharing a server give the table a name of their own. */
export function seedArticleTable(tableName = 'test', names: SeedArticleNames = {}): CreateTableCommandInput {
  return keyedWithOneGsi(tableName, names.key ?? 'id', names.index ?? 'gsi-status', 'status');
}

/** Seed article 000's better-table-def.json: a sparse GSI keyed by the id of unused items. */
export function betterSeedArticleTable(tableName = 'better-table'): CreateTableCommandInput {
  return keyedWithOneGsi(tableName, 'id', 'gsi-un-used-id', 'unUsedId');
}

/** Both of the article's designs: on-demand, one S hash key, one GSI (projecting ALL) on one S attribute. */
function keyedWithOneGsi(tableName: string, key: string, indexName: string, indexKey: string): CreateTableCommandInput {
  return {
    AttributeDefinitions: attributes({ [key]: 'S', [indexKey]: 'S' }),
    TableName: tableName,
    KeySchema: keySchema(key),
    GlobalSecondaryIndexes: [globalIndex(indexName, indexKey)],
    BillingMode: 'PAY_PER_REQUEST',
  };
}
