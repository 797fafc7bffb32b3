/**
 * PartiQL's reserved words, as the PartiQL reference lexer (which DynamoDB's front end uses)
 * knows them: every SQL-92 keyword plus PartiQL's own. A bare word on this list is never an
 * attribute name — `SELECT key FROM t` fails as DynamoDB's does; such names must be quoted.
 */

const SQL92 = `absolute action add all allocate alter and any are as asc assertion at authorization avg begin
between bit bit_length by cascade cascaded case cast catalog char character character_length char_length
check close coalesce collate collation column commit connect connection constraint constraints continue
convert corresponding count create cross current current_date current_time current_timestamp current_user
cursor date deallocate dec decimal declare default deferrable deferred delete desc describe descriptor
diagnostics disconnect distinct domain double drop else end end-exec escape except exception exec execute
exists external extract date_add date_diff false fetch first float for foreign found from full get global
go goto grant group having identity immediate in indicator initially inner input insensitive insert int
integer intersect interval into is isolation join key language last left level like local lower match max
min module names national natural nchar next no not null nullif numeric octet_length of on only open
option or order outer output overlaps pad partial position precision prepare preserve primary prior
privileges procedure public read real references relative restrict revoke right rollback rows schema
scroll section select session session_user set size smallint some space sql sqlcode sqlerror sqlstate
substring sum system_user table temporary then time timestamp to transaction translate translation trim
true union unique unknown update upper usage user using value values varchar varying view when whenever
where with work write zone`;

const PARTIQL = `can_cast can_lossless_cast missing pivot unpivot limit offset tuple remove index let integer2 int2
integer4 int4 integer8 int8 bigint conflict do nothing returning modified new old bool boolean string
symbol clob blob struct list sexp bag`;

export const KEYWORDS: ReadonlySet<string> = new Set(`${SQL92} ${PARTIQL}`.split(/\s+/).filter((word) => word !== ''));

/** Keywords the lexer turns into operators rather than keywords. */
export const WORD_OPERATORS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'is', 'in', 'between', 'like']);

/** Keywords that are function names when a `(` follows. */
export const FUNCTION_KEYWORDS: ReadonlySet<string> = new Set([
  'exists',
  'count',
  'avg',
  'max',
  'min',
  'sum',
  'substring',
  'char_length',
  'character_length',
  'octet_length',
  'bit_length',
  'upper',
  'lower',
  'size',
  'sexp',
  'list',
  'bag',
]);

/** Pairs of words the lexer fuses into one token, as PartiQL's lexer does. */
export const FUSED_WORDS: ReadonlyMap<string, string> = new Map([
  ['not in', 'not_in'],
  ['is not', 'is_not'],
  ['not between', 'not_between'],
  ['not like', 'not_like'],
  ['insert into', 'insert_into'],
  ['all old', 'all_old'],
  ['all new', 'all_new'],
  ['modified old', 'modified_old'],
  ['modified new', 'modified_new'],
  ['double precision', 'double_precision'],
  ['character varying', 'character_varying'],
  ['on conflict', 'on_conflict'],
  ['do nothing', 'do_nothing'],
]);

/**
 * IS type names (PartiQL's type keywords) and the SQL data type DynamoDB names them by in its
 * "Unsupported data type for IS operator" message.
 */
export const TYPE_NAMES: ReadonlyMap<string, string> = new Map([
  ['missing', 'MISSING'],
  ['null', 'NULL'],
  ['boolean', 'BOOLEAN'],
  ['bool', 'BOOLEAN'],
  ['smallint', 'SMALLINT'],
  ['int2', 'SMALLINT'],
  ['integer2', 'SMALLINT'],
  ['integer4', 'INTEGER4'],
  ['int4', 'INTEGER4'],
  ['integer8', 'INTEGER8'],
  ['int8', 'INTEGER8'],
  ['bigint', 'INTEGER8'],
  ['integer', 'INTEGER'],
  ['int', 'INTEGER'],
  ['float', 'FLOAT'],
  ['real', 'REAL'],
  ['double_precision', 'DOUBLE_PRECISION'],
  ['decimal', 'DECIMAL'],
  ['dec', 'DECIMAL'],
  ['numeric', 'NUMERIC'],
  ['timestamp', 'TIMESTAMP'],
  ['date', 'DATE'],
  ['time', 'TIME'],
  ['character', 'CHARACTER'],
  ['char', 'CHARACTER'],
  ['character_varying', 'CHARACTER_VARYING'],
  ['varchar', 'CHARACTER_VARYING'],
  ['string', 'STRING'],
  ['symbol', 'SYMBOL'],
  ['clob', 'CLOB'],
  ['blob', 'BLOB'],
  ['struct', 'STRUCT'],
  ['tuple', 'TUPLE'],
  ['list', 'LIST'],
  ['sexp', 'SEXP'],
  ['bag', 'BAG'],
  ['any', 'ANY'],
]);
