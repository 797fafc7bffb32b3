/**
 * Every setting of a dynatwin server, in one declarative table: name (the library's option), flag
 * (the CLI's), type, units, bounds, default and help text. The CLI's flags, its --help, the
 * library's option types (`TableOptions`) and the checks of both are generated from it, so a
 * setting added here is reachable from the command line and from startDynatwin() alike.
 */
import { DEFAULT_CAPACITY_SETTINGS, type CapacitySettings } from './capacity/admission.js';
import { DEFAULT_PARTITION_SIZE_LIMIT_BYTES } from './capacity/partitions.js';
import { ITEM_COLLECTION_SIZE_LIMIT_BYTES } from './engine/item-collections.js';
import { inspectionTokenProblem } from './server/inspection-auth.js';
import { parsePostgresUrl, redactStoreUrl } from './storage/postgres-url.js';
import { CHECKPOINT_LOG_BYTES_DEFAULT } from './storage/wal.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** No sane rate reaches it; it keeps a typo (an extra zero or five) from passing as a setting. */
const UNITS_PER_SECOND_LIMIT = 100_000_000;

interface SpecBase {
  /** The library's option name; units last (`gsiLagMs`). */
  readonly name: string;
  /** The CLI flag without its dashes. */
  readonly flag: string;
  readonly help: string;
  /** cli: a flag only (--in-memory); library: an option only. Default both. */
  readonly scope?: 'cli' | 'library';
  /** Options of the admission model, passed as `capacitySettings` (docs/CAPACITY-MODEL.md). */
  readonly group?: 'capacitySettings';
  /** Checks a string value beyond its type and answers its canonical form; throws OptionError. */
  readonly normalize?: (text: string, name: string) => string;
  /** How `dynatwin config` prints a value, when not as it is (a URL's password hidden). */
  readonly shown?: (text: string) => string;
}

export interface NumberSpec extends SpecBase {
  /** integer: a whole number; size: bytes, also written with binary units (10GB, 512KB). */
  readonly kind: 'integer' | 'size';
  /** As shown in --help: ms, bytes, units/s ... */
  readonly units: string;
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

export interface ChoiceSpec extends SpecBase {
  readonly kind: 'choice';
  readonly choices: readonly string[];
  /** What startDynatwin accepts, when it accepts more than the flag (measurement-only values). */
  readonly libraryChoices?: readonly string[];
  readonly default: string;
}

export interface StringSpec extends SpecBase {
  /** strings: the flag may repeat; the option is a list. */
  readonly kind: 'string' | 'strings';
  readonly placeholder: string;
  readonly default: string | undefined;
}

export interface BooleanSpec extends SpecBase {
  readonly kind: 'boolean';
  readonly default: false;
}

export type OptionSpec = NumberSpec | ChoiceSpec | StringSpec | BooleanSpec;

const capacity = DEFAULT_CAPACITY_SETTINGS;

export const OPTION_TABLE = [
  { name: 'port', flag: 'port', kind: 'integer', units: 'port', min: 0, max: 65535, default: 8000, help: 'port to listen on; 0 picks a free one (the library defaults to 0)' },
  { name: 'host', flag: 'host', kind: 'string', placeholder: 'address', default: '127.0.0.1', help: 'address to bind' },
  { name: 'dataDir', flag: 'data-dir', kind: 'string', placeholder: 'path', default: './dynatwin-data', help: 'data directory (write-ahead log and LMDB), created if missing; one server at a time (the library keeps everything in memory without it)' },
  { name: 'inMemory', flag: 'in-memory', kind: 'boolean', default: false, scope: 'cli', help: 'keep everything in memory; nothing is persisted (not with --data-dir)' },
  {
    name: 'store',
    flag: 'store',
    kind: 'string',
    placeholder: 'url',
    default: undefined,
    normalize: normalizeStoreUrl,
    shown: redactStoreUrl,
    help: 'keep everything in this PostgreSQL database instead of a data directory: postgres://user:password@host:port/database, optionally ?schema=name (default dynatwin; one database holds several twins, one a schema) and libpq\'s sslmode; several dynatwin processes may share it (not with --data-dir or --in-memory)',
  },
  {
    name: 'durability',
    flag: 'durability',
    kind: 'choice',
    choices: ['flush', 'commit'],
    // 'none' (plain LMDB, never flushed) exists for the benchmark's store ceiling only: see storage/lmdb.ts.
    libraryChoices: ['flush', 'commit', 'none'],
    default: 'flush',
    help: "flush: acknowledge a write once its group of the write-ahead log is on disk (fdatasync'd), surviving power loss; commit: once the OS has it (written, not synced), surviving a crash of dynatwin but not of the machine",
  },
  {
    name: 'checkpointLogBytes',
    flag: 'checkpoint-log-size',
    kind: 'size',
    units: 'bytes',
    min: 4096,
    max: 4 * 1024 ** 3,
    default: CHECKPOINT_LOG_BYTES_DEFAULT,
    help: 'with a data directory: once this much write-ahead log was written since the last checkpoint, a background checkpoint copies those writes into LMDB and deletes the log; larger means fewer checkpoints but more memory and a longer replay after a crash',
  },
  { name: 'https', flag: 'https', kind: 'boolean', default: false, help: 'serve HTTPS with a self-signed certificate for localhost, 127.0.0.1, ::1 and --host, made at start (kept in the data directory and reused; with --in-memory written to a temporary file); the banner names the file to trust (NODE_EXTRA_CA_CERTS, AWS_CA_BUNDLE, --ca-bundle)' },
  { name: 'nodeHttp', flag: 'node-http', kind: 'boolean', default: false, help: "serve every request through node:http's parser, without the fast lane that reads the common DynamoDB request (POST /, keep-alive, Content-Length body) straight off the socket; slower, for comparison or should a client not get on with the lane (HTTPS always uses node:http)" },
  { name: 'tlsCert', flag: 'tls-cert', kind: 'string', placeholder: 'path', default: undefined, help: 'serve HTTPS with this PEM certificate (chain); needs --tls-key' },
  { name: 'tlsKey', flag: 'tls-key', kind: 'string', placeholder: 'path', default: undefined, help: "the PEM private key of --tls-cert" },
  {
    name: 'auth',
    flag: 'auth',
    kind: 'choice',
    choices: ['any', 'verify'],
    default: 'any',
    help: "any: a request needs a SigV4 Authorization (or presigned query string) of the right shape, signed with any credentials, as DynamoDB Local; verify: the signature must check out against --credentials-file or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, within 5 minutes of the server's clock (DynamoDB's errors otherwise)",
  },
  { name: 'credentialsFile', flag: 'credentials-file', kind: 'string', placeholder: 'path', default: undefined, help: 'with --auth verify: accept the keys of every profile of this AWS shared-credentials file (the ~/.aws/credentials format)' },
  {
    name: 'inspectionToken',
    flag: 'inspection-token',
    kind: 'string',
    placeholder: 'token',
    default: undefined,
    normalize: normalizeInspectionToken,
    help: "with --auth verify: the token dynatwin's own routes (/dynatwin/..., /metrics) take as 'Authorization: Bearer <token>' besides a SigV4 signature, 16 to 256 letters, digits or - . _ ~ + / = (e.g. for a CI set-up or a Prometheus scrape config); a random one is made and printed at start-up otherwise",
  },
  { name: 'clock', flag: 'clock', kind: 'choice', choices: ['real', 'manual'], default: 'real', help: 'real: wall-clock time; manual: starts at the real time and moves only when POST /dynatwin/clock {"advanceMs": n} (or twin.clock.advance) moves it' },
  { name: 'region', flag: 'region', kind: 'string', placeholder: 'name', default: 'us-east-1', help: 'region named in ARNs' },
  {
    name: 'accountId',
    flag: 'account-id',
    kind: 'string',
    placeholder: 'id',
    default: '000000000000',
    normalize: normalizeAccountId,
    help: "the caller's account, named in ARNs: an ARN of another account is refused with AccessDeniedException, a missing table of this one is ResourceNotFoundException",
  },
  { name: 'init', flag: 'init', kind: 'string', placeholder: 'file', default: undefined, help: 'tables to make at start-up, before a request is served, unless they exist: a YAML or JSON file { tables: [CreateTable inputs as --cli-input-json takes them, each with optional Items and TimeToLiveSpecification] } (README, "Seed tables")' },
  { name: 'tableCreateDelayMs', flag: 'table-create-delay', kind: 'integer', units: 'ms', min: 0, max: DAY_MS, default: 0, help: 'how long a new table stays CREATING, on the server clock' },
  { name: 'tableUpdateDelayMs', flag: 'table-update-delay', kind: 'integer', units: 'ms', min: 0, max: DAY_MS, default: 0, help: 'how long a table stays UPDATING after UpdateTable (and a new GSI CREATING at least as long), on the server clock' },
  { name: 'tableDeleteDelayMs', flag: 'table-delete-delay', kind: 'integer', units: 'ms', min: 0, max: DAY_MS, default: 0, help: 'how long a deleted table stays DELETING before it is gone, on the server clock' },
  { name: 'gsiLagMs', flag: 'gsi-lag', kind: 'integer', units: 'ms', min: 0, max: DAY_MS, default: 0, help: 'delay before a write reaches global secondary indexes, on the server clock' },
  {
    name: 'itemCollectionSizeLimitBytes',
    flag: 'item-collection-size-limit',
    kind: 'size',
    units: 'bytes',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    default: ITEM_COLLECTION_SIZE_LIMIT_BYTES,
    help: "item collection limit of tables with local secondary indexes (DynamoDB's 10 GB)",
  },
  {
    name: 'shutdownWaitMs',
    flag: 'shutdown-wait',
    kind: 'integer',
    units: 'ms',
    min: 0,
    max: 10 * 60 * 1000,
    default: 5000,
    help: 'on SIGINT/SIGTERM (the library: close()), how long requests already taken may still run to their answers once new ones are refused; those still running then are answered ServiceUnavailable (503), and the store closes',
  },
  { name: 'partitionModel', flag: 'partition-model', kind: 'choice', choices: ['modern', 'classic'], default: 'modern', help: "modern: today's DynamoDB; classic: the 2017 formula, ceil(max(RCU/3000 + WCU/1000, size/limit))" },
  {
    name: 'partitionSizeLimitBytes',
    flag: 'partition-size-limit',
    kind: 'size',
    units: 'bytes',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    default: DEFAULT_PARTITION_SIZE_LIMIT_BYTES,
    help: 'a partition holding more splits in two (B, KB, MB, GB are binary units: 10MB shows splits on a laptop)',
  },
  { name: 'capacity', flag: 'capacity', kind: 'choice', choices: ['enforce', 'off'], default: 'enforce', help: 'enforce: throttle as DynamoDB does; off: count capacity units and record metrics, never throttle' },
  {
    name: 'allowHosts',
    flag: 'allow-host',
    kind: 'strings',
    placeholder: 'name',
    default: undefined,
    help: "also serve requests whose Host header names <name> (repeatable); by default only loopback names and addresses and the bound address are served, which stops web pages from reaching dynatwin by DNS rebinding; '*' serves any Host",
  },
  {
    name: 'corsOrigins',
    flag: 'cors-origin',
    kind: 'strings',
    placeholder: 'origin',
    default: undefined,
    normalize: normalizeCorsOrigin,
    help: "also let the web page at <origin> (e.g. http://app.test:3000) use dynatwin from a browser (repeatable); by default only pages served from loopback may; '*' lets any web page in",
  },
  // The admission model (docs/CAPACITY-MODEL.md); defaults are DynamoDB's.
  { group: 'capacitySettings', name: 'partitionReadUnitsPerSecondMax', flag: 'partition-read-units-max', kind: 'integer', units: 'read units/s', min: 1, max: UNITS_PER_SECOND_LIMIT, default: capacity.partitionReadUnitsPerSecondMax, help: 'hard read ceiling of one partition' },
  { group: 'capacitySettings', name: 'partitionWriteUnitsPerSecondMax', flag: 'partition-write-units-max', kind: 'integer', units: 'write units/s', min: 1, max: UNITS_PER_SECOND_LIMIT, default: capacity.partitionWriteUnitsPerSecondMax, help: 'hard write ceiling of one partition' },
  { group: 'capacitySettings', name: 'partitionCeilingMode', flag: 'partition-ceiling-mode', kind: 'choice', choices: ['independent', 'combined'], default: capacity.partitionCeilingMode, help: "independent: a partition's read and write ceilings are separate; combined: one budget, reads/readMax + writes/writeMax a second" },
  { group: 'capacitySettings', name: 'adaptiveCapacity', flag: 'adaptive-capacity', kind: 'choice', choices: ['auto', 'on', 'off'], default: capacity.adaptiveCapacity, help: "a short provisioned partition borrows the table's unused throughput; auto: off under --partition-model classic (the pre-adaptive era), on otherwise" },
  { group: 'capacitySettings', name: 'burstBankSecondsMax', flag: 'burst-bank-seconds', kind: 'integer', units: 'seconds', min: 0, max: 3600, default: capacity.burstBankSecondsMax, help: "unused allocation a partition banks for bursts, in seconds of its allocation" },
  { group: 'capacitySettings', name: 'onDemandTableReadUnitsPerSecondMax', flag: 'on-demand-table-read-units-max', kind: 'integer', units: 'read units/s', min: 1, max: UNITS_PER_SECOND_LIMIT, default: capacity.onDemandTableReadUnitsPerSecondMax, help: 'per-table quota of an on-demand table, and of each of its GSIs' },
  { group: 'capacitySettings', name: 'onDemandTableWriteUnitsPerSecondMax', flag: 'on-demand-table-write-units-max', kind: 'integer', units: 'write units/s', min: 1, max: UNITS_PER_SECOND_LIMIT, default: capacity.onDemandTableWriteUnitsPerSecondMax, help: 'per-table quota of an on-demand table, and of each of its GSIs' },
  { group: 'capacitySettings', name: 'onDemandInitialPeakReadUnitsPerSecond', flag: 'on-demand-initial-peak-read-units', kind: 'integer', units: 'read units/s', min: 1, max: UNITS_PER_SECOND_LIMIT, default: capacity.onDemandInitialPeakReadUnitsPerSecond, help: "a new on-demand table's previous peak; it serves twice that at once" },
  { group: 'capacitySettings', name: 'onDemandInitialPeakWriteUnitsPerSecond', flag: 'on-demand-initial-peak-write-units', kind: 'integer', units: 'write units/s', min: 1, max: UNITS_PER_SECOND_LIMIT, default: capacity.onDemandInitialPeakWriteUnitsPerSecond, help: "a new on-demand table's previous peak; it serves twice that at once" },
  { group: 'capacitySettings', name: 'onDemandPeakSustainSeconds', flag: 'on-demand-peak-sustain-seconds', kind: 'integer', units: 'seconds', min: 1, max: 60, default: capacity.onDemandPeakSustainSeconds, help: 'how long a level must be held to count as a sustained peak' },
  { group: 'capacitySettings', name: 'onDemandPeakPromotionDelayMs', flag: 'on-demand-peak-promotion-delay', kind: 'integer', units: 'ms', min: 0, max: DAY_MS, default: capacity.onDemandPeakPromotionDelayMs, help: 'how long after a sustained stretch began its level becomes the previous peak' },
  {
    group: 'capacitySettings',
    name: 'gsiBacklogWriteUnitsMax',
    flag: 'gsi-backlog-write-units-max',
    kind: 'integer',
    units: 'write units',
    min: 0,
    max: 1_000_000_000,
    default: capacity.gsiBacklogWriteUnitsMax,
    help: 'a GSI partition whose backlog of index writes passes this refuses every write to its table (GSI back-pressure); lower it to see the throttle sooner',
  },
  { group: 'capacitySettings', name: 'burstBankCeilingSecondsMin', flag: 'burst-bank-ceiling-seconds-min', kind: 'integer', units: 'seconds', min: 0, max: 3600, default: capacity.burstBankCeilingSecondsMin, help: "a partition's burst bank holds at least this many seconds of its ceiling, however small its allocation (0: 300 s of the allocation only)" },
  { group: 'capacitySettings', name: 'ceilingReserveSeconds', flag: 'ceiling-reserve-seconds', kind: 'integer', units: 'seconds', min: 0, max: 3600, default: capacity.ceilingReserveSeconds, help: 'a rested partition may go this many seconds of its ceiling above it in a short burst (0: a strict one-second ceiling)' },
  { group: 'capacitySettings', name: 'largeRequestCeilingSeconds', flag: 'large-request-ceiling-seconds', kind: 'integer', units: 'seconds', min: 1, max: 3600, default: capacity.largeRequestCeilingSeconds, help: "a request asking a table or GSI for more than this many seconds of a partition's ceiling is paid from the burst banks" },
] as const satisfies readonly OptionSpec[];

type Spec = (typeof OPTION_TABLE)[number];

type ValueOf<S> = S extends { readonly kind: 'choice'; readonly libraryChoices: readonly (infer L)[] }
  ? L
  : S extends { readonly kind: 'choice'; readonly choices: readonly (infer C)[] }
  ? C
  : S extends { readonly kind: 'integer' | 'size' }
    ? number
    : S extends { readonly kind: 'string' }
      ? string
      : S extends { readonly kind: 'strings' }
        ? readonly string[]
        : S extends { readonly kind: 'boolean' }
          ? boolean
          : never;

type LibrarySpec = Exclude<Spec, { readonly scope: 'cli' }>;
export type TopLevelSpec = Exclude<LibrarySpec, { readonly group: 'capacitySettings' }>;
type CapacitySpec = Extract<Spec, { readonly group: 'capacitySettings' }>;

/** The library's options, generated from the table (see startDynatwin for what each means). */
export type TableOptions = { readonly [S in TopLevelSpec as S['name']]?: ValueOf<S> } & {
  /** The admission model's settings (docs/CAPACITY-MODEL.md); each defaults to DynamoDB's. */
  readonly capacitySettings?: { readonly [S in CapacitySpec as S['name']]?: ValueOf<S> };
};

// Every field of the admission model has its row: a field added there without one fails here.
type MissingCapacityRows = Exclude<keyof CapacitySettings, CapacitySpec['name']>;
const everyCapacityFieldHasARow: [MissingCapacityRows] extends [never] ? true : MissingCapacityRows = true;
void everyCapacityFieldHasARow;

/** A value that breaks a row's type or bounds; the message names the flag or option. */
export class OptionError extends Error {}

export type OptionValue = number | string | boolean | readonly string[];

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/**
 * The value of one flag's text, checked against its row; throws OptionError naming `flag` (the
 * flag, or where else the text came from: an environment variable, a config file's field).
 */
export function parseFlagValue(spec: OptionSpec, text: string, flag: string = `--${spec.flag}`): number | string {
  switch (spec.kind) {
    case 'integer': {
      const value = /^\d+$/.test(text) ? Number(text) : NaN;
      return checkNumber(spec, value, flag, text);
    }
    case 'size': {
      const match = /^(\d+(?:\.\d+)?)\s*([KMGT]?B)?$/i.exec(text.trim());
      const value = match === null ? NaN : Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toUpperCase()]!);
      return checkNumber(spec, value, flag, text);
    }
    case 'choice':
      if (spec.choices.includes(text)) return text;
      throw new OptionError(`${flag} must be ${spec.choices.map((choice) => `'${choice}'`).join(' or ')}, got '${text}'`);
    case 'string':
    case 'strings':
      if (text === '') throw new OptionError(`${flag} must not be empty`);
      return spec.normalize === undefined ? text : spec.normalize(text, flag);
    case 'boolean':
      throw new OptionError(`${flag} takes no value`);
  }
}

/** An AWS account id: twelve digits. */
function normalizeAccountId(text: string, name: string): string {
  if (!/^\d{12}$/.test(text)) throw new OptionError(`${name} must be twelve digits, got '${text}'`);
  return text;
}

function normalizeInspectionToken(text: string, name: string): string {
  const problem = inspectionTokenProblem(text);
  if (problem !== undefined) throw new OptionError(`${name} ${problem}`);
  return text;
}

/** A PostgreSQL URL dynatwin can use (postgres-url.ts); the message never shows the password. */
function normalizeStoreUrl(text: string, name: string): string {
  try {
    parsePostgresUrl(text);
  } catch (error) {
    throw new OptionError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return text;
}

/** `*`, `null` (file:// and sandboxed pages) or an http(s) origin: scheme, host and optional port, no path. */
function normalizeCorsOrigin(text: string, name: string): string {
  if (text === '*' || text === 'null') return text;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new OptionError(`${name} must be an origin such as http://localhost:3000 (scheme, host, optional port; no path) or '*', got '${text}'`);
  }
  return url.origin;
}

/** Option values by the table's names, split as ServerOptions takes them. */
export interface OptionValues {
  readonly top: Map<string, OptionValue>;
  readonly capacitySettings: Map<string, OptionValue>;
}

/** Reads a library options object against the table; throws OptionError for a bad value. */
export function libraryOptionValues(options: object): OptionValues {
  const values: OptionValues = { top: new Map(), capacitySettings: new Map() };
  const settings: unknown = Reflect.get(options, 'capacitySettings');
  for (const spec of OPTION_TABLE as readonly OptionSpec[]) {
    if (spec.scope === 'cli') continue;
    const source = spec.group === 'capacitySettings' ? settings : options;
    if (typeof source !== 'object' || source === null) continue;
    const value: unknown = Reflect.get(source, spec.name);
    if (value === undefined) continue;
    checkOptionValue(spec, value);
    const checked = value as OptionValue;
    const normalized =
      spec.normalize === undefined || (spec.kind !== 'strings' && spec.kind !== 'string')
        ? checked
        : spec.kind === 'strings'
          ? (checked as readonly string[]).map((item) => spec.normalize!(item, spec.name))
          : spec.normalize(checked as string, spec.name);
    (spec.group === 'capacitySettings' ? values.capacitySettings : values.top).set(spec.name, normalized);
  }
  return values;
}

/** Checks a library option's value against its row; throws OptionError naming the option. */
export function checkOptionValue(spec: OptionSpec, value: unknown): void {
  const name = spec.group === undefined ? spec.name : `${spec.group}.${spec.name}`;
  const ok =
    spec.kind === 'integer' || spec.kind === 'size'
      ? typeof value === 'number' && Number.isSafeInteger(value) && value >= spec.min && value <= spec.max
      : spec.kind === 'choice'
        ? typeof value === 'string' && (spec.libraryChoices ?? spec.choices).includes(value)
        : spec.kind === 'string'
          ? typeof value === 'string'
          : spec.kind === 'strings'
            ? Array.isArray(value) && value.every((item) => typeof item === 'string')
            : typeof value === 'boolean';
  if (!ok) throw new OptionError(`${name} must be ${describeType(spec)}, got ${JSON.stringify(value) ?? String(value)}`);
}

function checkNumber(spec: NumberSpec, value: number, flag: string, text: string): number {
  if (!Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
    throw new OptionError(`${flag} must be ${describeType(spec)}, got '${text}'`);
  }
  return value;
}

function describeType(spec: OptionSpec): string {
  switch (spec.kind) {
    case 'integer':
      return spec.units === 'port' ? `a whole number from ${spec.min} to ${spec.max}` : `a whole number of ${spec.units} from ${spec.min} to ${spec.max}`;
    case 'size':
      return `a size from ${spec.min} to ${spec.max} bytes, such as 10GB, 10MB or 4096`;
    case 'choice':
      return (spec.libraryChoices ?? spec.choices).map((choice) => `'${choice}'`).join(' or ');
    case 'string':
      return 'a string';
    case 'strings':
      return 'a list of strings';
    case 'boolean':
      return 'true or false';
  }
}

/** The rows the CLI offers (all but library-only ones). */
export function cliSpecs(): readonly OptionSpec[] {
  return (OPTION_TABLE as readonly OptionSpec[]).filter((spec) => spec.scope !== 'library');
}

const HELP_WIDTH = 96;
const HELP_INDENT = '        ';

/** The options part of --help: each flag, then its help, units, bounds and default, wrapped. */
export function optionsHelp(): string {
  return cliSpecs()
    .map((spec) => `  --${spec.flag}${argumentOf(spec)}\n${wrap(`${spec.help}${detailsOf(spec)}`, HELP_WIDTH - HELP_INDENT.length)
      .map((line) => HELP_INDENT + line)
      .join('\n')}`)
    .join('\n');
}

function argumentOf(spec: OptionSpec): string {
  switch (spec.kind) {
    case 'integer':
      return ` <${spec.units === 'port' ? 'n' : spec.units.replace(/ /g, '-')}>`;
    case 'size':
      return ' <size>';
    case 'choice':
      return ` ${spec.choices.join('|')}`;
    case 'string':
    case 'strings':
      return ` <${spec.placeholder}>`;
    case 'boolean':
      return '';
  }
}

function detailsOf(spec: OptionSpec): string {
  switch (spec.kind) {
    case 'integer':
    case 'size': {
      const units = spec.units === 'port' ? '' : ` ${spec.units}`;
      const bounds = spec.max === Number.MAX_SAFE_INTEGER ? `at least ${spec.min}${units}` : `${spec.min} to ${spec.max}${units}`;
      return ` [default ${spec.default}; ${bounds}]`;
    }
    case 'choice':
    case 'string':
      // A setting without a default (a file to name) is off until given: no "[default undefined]".
      return spec.default === undefined ? '' : ` [default ${spec.default}]`;
    default:
      return '';
  }
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
