/**
 * ListContributorInsights: the Contributor Insights summaries of one table and its GSIs, or of
 * every table, a page at a time. As DynamoDB does, DISABLED tables and GSIs are left out (ENABLING,
 * ENABLED, DISABLING and FAILED ones are listed), a table comes before its GSIs, and the last page
 * carries no NextToken. Tables are walked by name, a table's GSIs by name.
 *
 * The NextToken is the (table, index) of the last summary returned, base64url-encoded JSON; the
 * next page starts after it, so a token stays valid when tables come and go between pages.
 */
import type { Engine } from '../engine/engine.js';
import { validationError } from '../errors.js';
import type { InsightsSummary, InsightsTarget } from '../metrics/insights.js';
import { targetsOf } from '../engine/insights-targets.js';
import { requireTable, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes, TABLE_NAME_OR_ARN_CONSTRAINTS } from './shape.js';

/** DynamoDB's ListContributorInsightsLimit: at most 100 per page, also the page size when none is asked. */
const PAGE_SIZE_MAX = 100;
/** Our tokens are far shorter; anything longer is not one of them. */
const NEXT_TOKEN_LENGTH_MAX = 2048;

/** A place in the listing order: a table, and '' for the table itself or a GSI's name. */
type Position = readonly [table: string, index: string];

interface ListContributorInsightsRequest {
  readonly reference: TableReference | undefined;
  readonly after: Position | undefined;
  readonly pageSize: number;
}

export const listContributorInsightsOperation = defineOperation<ListContributorInsightsRequest>({
  name: 'ListContributorInsights',
  members: {
    TableName: shapes.string(TABLE_NAME_OR_ARN_CONSTRAINTS),
    NextToken: shapes.string(),
    MaxResults: shapes.integer({ valueMax: PAGE_SIZE_MAX }),
  },

  validate(input) {
    const maxResults = input.MaxResults as number | undefined;
    return {
      reference: input.TableName === undefined ? undefined : tableReferenceOf(input.TableName as string),
      after: input.NextToken === undefined ? undefined : decodeNextToken(input.NextToken as string),
      // The shape has no minimum: a page size below 1 is taken as the default.
      pageSize: maxResults === undefined || maxResults < 1 ? PAGE_SIZE_MAX : maxResults,
    };
  },

  execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    const summaries: InsightsSummary[] = [];
    let last: Position | undefined;
    for (const target of candidates(engine, request.reference)) {
      const position: Position = [target.table, target.index ?? ''];
      if (request.after !== undefined && comparePositions(position, request.after) <= 0) continue;
      const summary = engine.telemetry.insights.summary(target, nowMs);
      if (summary === undefined) continue;
      // One summary past a full page: there is a next page, and it starts after the page's last.
      if (summaries.length === request.pageSize) return { ContributorInsightsSummaries: summaries, NextToken: encodeNextToken(last!) };
      summaries.push(summary);
      last = position;
    }
    return { ContributorInsightsSummaries: summaries };
  },
});

/** One table's targets (ResourceNotFound when it does not exist), or every table's, in listing order. */
function* candidates(engine: Engine, reference: TableReference | undefined): Generator<InsightsTarget> {
  if (reference !== undefined) {
    yield* targetsOf(requireTable(engine, reference));
    return;
  }
  for (const name of engine.catalog.names()) {
    const table = engine.catalog.get(name);
    if (table !== undefined) yield* targetsOf(table);
  }
}

function comparePositions(a: Position, b: Position): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

export function encodeNextToken(position: Position): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The position a NextToken names; anything that is not one of our tokens is a ValidationException. */
export function decodeNextToken(token: string): Position {
  const invalid = () => validationError('Invalid NextToken provided');
  if (token.length === 0 || token.length > NEXT_TOKEN_LENGTH_MAX || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== 'string' || typeof decoded[1] !== 'string') throw invalid();
  return [decoded[0], decoded[1]];
}
