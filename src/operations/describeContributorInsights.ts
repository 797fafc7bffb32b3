/**
 * DescribeContributorInsights: the Contributor Insights status of a table or GSI, its rule names,
 * mode and last change. A table or GSI never configured answers only its name and DISABLED.
 */
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { insightsIndexNameMember, resolveInsightsTarget } from './updateContributorInsights.js';

interface DescribeContributorInsightsRequest {
  readonly reference: TableReference;
  readonly indexName: string | undefined;
}

export const describeContributorInsightsOperation = defineOperation<DescribeContributorInsightsRequest>({
  name: 'DescribeContributorInsights',
  members: {
    TableName: tableNameOrArnMember,
    IndexName: insightsIndexNameMember,
  },

  validate(input) {
    return { reference: tableReferenceOf(input.TableName as string), indexName: input.IndexName as string | undefined };
  },

  execute(engine, request) {
    const target = resolveInsightsTarget(engine, request.reference, request.indexName);
    return engine.telemetry.insights.describe(target, engine.clock.nowMs());
  },
});
