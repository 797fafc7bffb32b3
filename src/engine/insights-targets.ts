/**
 * The tables and GSIs Contributor Insights applies to, as found in the catalog: what the three
 * operations and the inspection route hand to ContributorInsights. LSIs have no Contributor
 * Insights of their own (DynamoDB answers ResourceNotFound for them, as for an unknown index).
 * It lives in the engine, which knows tables, so that metrics knows nothing of the engine.
 */
import type { InsightsTarget } from '../metrics/insights.js';
import type { SecondaryIndex } from './indexes.js';
import type { Table } from './table.js';

export function tableTarget(table: Table): InsightsTarget {
  return { table: table.name, tableId: table.record.id, hasSortKey: table.key.range !== undefined };
}

export function indexTarget(table: Table, index: SecondaryIndex): InsightsTarget {
  return {
    table: table.name,
    index: index.name,
    tableId: table.record.id,
    indexId: index.id,
    hasSortKey: index.key.range !== undefined,
  };
}

/** A table's GSI by name; undefined for an LSI or an unknown name. */
export function findGlobalIndex(table: Table, name: string): SecondaryIndex | undefined {
  const index = table.indexes.find(name);
  return index !== undefined && index.kind === 'global' ? index : undefined;
}

/** The table, then its GSIs by name: the order ListContributorInsights walks. */
export function targetsOf(table: Table): InsightsTarget[] {
  const indexes = table.indexes.all.filter((index) => index.kind === 'global');
  indexes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [tableTarget(table), ...indexes.map((index) => indexTarget(table, index))];
}
