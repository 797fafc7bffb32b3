/**
 * The PostgreSQL store's schema, created and migrated by version.
 *
 * Everything dynatwin keeps lives in one table of ordered keys (`kv`: the same byte keys and JSON
 * values as the embedded stores, src/model/key-codec.ts): catalog records, items, index entries,
 * stream records, history, backups, tokens. Its primary key is a B-tree over `bytea`, which
 * PostgreSQL compares as unsigned bytes (memcmp), the order every store keeps; a Query or a Scan
 * is a range read on it. `meta` holds the schema's version.
 *
 * Locks: a write locks the items it checks with transaction-scoped advisory locks (lock_read),
 * taken in sorted order. Why advisory locks and not `SELECT ... FOR UPDATE`: a conditional put of
 * an absent item has no row to lock, and the check must still hold at commit; an advisory lock
 * names the key, present or not. Why not SERIALIZABLE: its conflicts are found at commit, after
 * the write's effects, and on pages, not items; DynamoDB's conflicts are per item and known before.
 */

/** The version this dynatwin writes; a database at a higher one was written by a newer dynatwin. */
export const SCHEMA_VERSION = 1;

/** Step n brings a database from version n to n + 1 (`$S` is the schema, quoted). */
const MIGRATIONS: readonly string[] = [
  // 0 → 1: the ordered key-value table and the lock-then-read function.
  `CREATE TABLE $S.kv (k bytea PRIMARY KEY, v text NOT NULL);
   CREATE FUNCTION $S.lock_read(classes int[], objects int[], fail boolean, wanted bytea[])
   RETURNS TABLE (k bytea, v text, held int)
   LANGUAGE plpgsql VOLATILE AS $fn$
   DECLARE position int;
   BEGIN
     FOR position IN 1 .. coalesce(array_length(classes, 1), 0) LOOP
       IF fail THEN
         IF NOT pg_try_advisory_xact_lock(classes[position], objects[position]) THEN
           RETURN QUERY SELECT NULL::bytea, NULL::text, position;
           RETURN;
         END IF;
       ELSE
         PERFORM pg_advisory_xact_lock(classes[position], objects[position]);
       END IF;
     END LOOP;
     -- A statement of its own, so on READ COMMITTED its snapshot is taken after the locks: it sees
     -- every write that held one of them.
     RETURN QUERY SELECT kv.k, kv.v, 0 FROM $S.kv AS kv WHERE kv.k = ANY (wanted);
   END $fn$;`,
];

/** `schema` as an SQL identifier (it was checked to be a plain lower-case name, postgres-url.ts). */
export function quoted(schema: string): string {
  return `"${schema}"`;
}

/** The SQL of the migration from `version` to `version + 1`. */
export function migrationFrom(version: number, schema: string): string {
  const sql = MIGRATIONS[version];
  if (sql === undefined) throw new Error(`assertion failed: no migration from schema version ${version}`);
  return sql.replaceAll('$S', quoted(schema));
}

if (MIGRATIONS.length !== SCHEMA_VERSION) throw new Error('assertion failed: one migration per schema version');
