/** ListTables: table names in ascending order, a page at a time. */
import { defineOperation } from './operation.js';
import { shapes, TABLE_NAME_CONSTRAINTS } from './shape.js';

const PAGE_SIZE_MAX = 100;

interface ListTablesRequest {
  readonly limit: number;
  readonly exclusiveStartTableName: string | undefined;
}

export const listTablesOperation = defineOperation<ListTablesRequest>({
  name: 'ListTables',
  members: {
    Limit: shapes.integer({ valueMin: 1, valueMax: PAGE_SIZE_MAX }),
    ExclusiveStartTableName: shapes.string(TABLE_NAME_CONSTRAINTS),
  },

  validate(input) {
    return {
      limit: (input.Limit as number | undefined) ?? PAGE_SIZE_MAX,
      exclusiveStartTableName: input.ExclusiveStartTableName as string | undefined,
    };
  },

  execute(engine, request) {
    const start = request.exclusiveStartTableName;
    // The start name need not exist: the page begins after where it would sort.
    const names = start === undefined ? engine.catalog.names() : engine.catalog.names().filter((name) => name > start);
    const page = names.slice(0, request.limit);
    // A last name only when more names remain, so a client's paging loop ends on the last page.
    const more = names.length > request.limit;
    return { TableNames: page, LastEvaluatedTableName: more ? page[page.length - 1] : undefined };
  },
});
