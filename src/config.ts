/**
 * Where each server setting comes from: a flag, an environment variable, a config file, or the
 * default, in that order of precedence (the first that gives it wins). All four read the one option
 * table (options.ts): a row is `--data-dir`, `DYNATWIN_DATA_DIR` and `data-dir:` in the file.
 *
 * The config file is `--config FILE` (or DYNATWIN_CONFIG), else `dynatwin.yaml` in the working
 * directory when there is one; YAML or JSON (by its name), keys named as the flags without dashes.
 * A relative path in the file (data-dir, init, tls-cert ...) is read from the file's directory, as
 * the file's author sees it. `dynatwin config` prints the outcome, setting by setting.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { cliSpecs, OptionError, parseFlagValue, type OptionSpec, type OptionValue } from './options.js';

/** The config file looked for in the working directory when none is named. */
export const DEFAULT_CONFIG_FILE = 'dynatwin.yaml';
/** The environment variable naming a config file (as --config does). */
export const CONFIG_FILE_VARIABLE = 'DYNATWIN_CONFIG';
/** A config file is a handful of settings: a bigger one is a wrong file. */
const CONFIG_FILE_BYTES_MAX = 1024 * 1024;

/** Highest precedence first. */
export type SourceKind = 'flag' | 'environment' | 'file' | 'default';
const PRECEDENCE: readonly SourceKind[] = ['flag', 'environment', 'file', 'default'];

export interface Setting {
  readonly spec: OptionSpec;
  /** undefined: not set (a setting without a default). */
  readonly value: OptionValue | undefined;
  readonly kind: SourceKind;
  /** `--port`, `DYNATWIN_PORT`, `dynatwin.yaml`; empty for the default. */
  readonly origin: string;
}

export interface Configuration {
  /** One per CLI setting, in the table's order. */
  readonly settings: readonly Setting[];
  /** The config file read, if any. */
  readonly file: string | undefined;
}

export type FlagValues = Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>;

/** The environment variable of a flag: `data-dir` → `DYNATWIN_DATA_DIR`. */
export function environmentName(flag: string): string {
  return `DYNATWIN_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * Every setting's value and source from the parsed flags (parseArgs' values), the environment and
 * the config file; throws OptionError (one line naming the source and field) for a bad value.
 */
export function resolveConfiguration(flags: FlagValues, environment: NodeJS.ProcessEnv, cwd: string): Configuration {
  const file = configFileOf(flags, environment, cwd);
  const fileValues = file === undefined ? new Map<string, unknown>() : readConfigFile(file);
  const settings = cliSpecs().map((spec) => {
    const fromFlag = flagValue(spec, flags[spec.flag]);
    if (fromFlag !== undefined) return { spec, value: fromFlag, kind: 'flag' as const, origin: `--${spec.flag}` };
    const variable = environmentName(spec.flag);
    const text = environment[variable];
    // An empty variable counts as unset, as shells and compose files commonly leave them.
    if (text !== undefined && text !== '') return { spec, value: environmentValue(spec, text, variable), kind: 'environment' as const, origin: variable };
    if (file !== undefined && fileValues.has(spec.flag)) {
      return { spec, value: fileValue(spec, fileValues.get(spec.flag), `${file}: ${spec.flag}`, dirname(file)), kind: 'file' as const, origin: file };
    }
    return { spec, value: spec.default, kind: 'default' as const, origin: '' };
  });
  return { settings: settledStore(settings), file };
}

/** How far up the order a source stands: 0 for a flag. */
export function precedenceOf(kind: SourceKind): number {
  return PRECEDENCE.indexOf(kind);
}

/**
 * Where the data lives is one choice: --in-memory, --data-dir or --store (PostgreSQL). Given at the
 * same level, two of them are a mistake to report; given at different levels, the highest one wins
 * (a flag --in-memory over a data-dir in the file, DYNATWIN_STORE over a data-dir in the file), as
 * any other setting does.
 */
function settledStore(settings: Setting[]): Setting[] {
  const given = settings.filter((setting) => STORE_CHOICES.includes(setting.spec.flag) && setting.kind !== 'default' && setting.value !== false && setting.value !== undefined);
  if (given.length < 2) return settings;
  const winningLevel = Math.min(...given.map((setting) => precedenceOf(setting.kind)));
  const atWinningLevel = given.filter((setting) => precedenceOf(setting.kind) === winningLevel);
  if (atWinningLevel.length > 1) {
    const [first, second] = [...atWinningLevel].sort((a, b) => STORE_CHOICES.indexOf(a.spec.flag) - STORE_CHOICES.indexOf(b.spec.flag));
    throw new OptionError(`${first!.origin} and ${second!.origin}: ${storeConflictReason(first!.spec.flag, second!.spec.flag)}; give one or the other`);
  }
  const winner = atWinningLevel[0]!;
  return settings.map((setting) => (given.includes(setting) && setting !== winner ? { ...setting, value: setting.spec.default, kind: 'default', origin: `overridden by ${winner.origin}` } : setting));
}

/** The settings that say where the data lives, in the order their conflicts are named. */
const STORE_CHOICES: readonly string[] = ['in-memory', 'store', 'data-dir'];

function storeConflictReason(first: string, second: string): string {
  if (first === 'in-memory' && second === 'data-dir') return 'in-memory keeps nothing on disk, so data-dir has no use with it';
  if (first === 'in-memory') return 'in-memory keeps nothing anywhere, so a store has no use with it';
  return 'store keeps everything in the PostgreSQL database, so data-dir has no use with it';
}

function configFileOf(flags: FlagValues, environment: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const named = typeof flags['config'] === 'string' ? flags['config'] : environment[CONFIG_FILE_VARIABLE] || undefined;
  if (named !== undefined) {
    const path = resolve(cwd, named);
    if (!existsSync(path)) throw new OptionError(`${typeof flags['config'] === 'string' ? '--config' : CONFIG_FILE_VARIABLE} ${named}: no such file`);
    return path;
  }
  const standard = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(standard) ? standard : undefined;
}

/** The file's settings by flag name; throws OptionError for a file that is not a map of known flags. */
export function readConfigFile(file: string): Map<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new OptionError(`${file}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (text.length > CONFIG_FILE_BYTES_MAX) throw new OptionError(`${file}: larger than ${CONFIG_FILE_BYTES_MAX} bytes; is it the right file?`);
  const json = /\.json$/i.test(file);
  let document: unknown;
  try {
    document = json ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    throw new OptionError(`${file}: not valid ${json ? 'JSON' : 'YAML'}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/:$/, '')}`);
  }
  // An empty YAML file is null: no settings.
  if (document === null || document === undefined) return new Map();
  if (typeof document !== 'object' || Array.isArray(document)) throw new OptionError(`${file}: must be a map of settings, e.g. "port: 8000"`);
  const known = new Set(cliSpecs().map((spec) => spec.flag));
  const values = new Map<string, unknown>();
  for (const [key, value] of Object.entries(document)) {
    if (!known.has(key)) throw new OptionError(`${file}: ${key} is not a setting (keys are the flags without their dashes; dynatwin --help lists them)`);
    values.set(key, value);
  }
  return values;
}

function flagValue(spec: OptionSpec, raw: FlagValues[string]): OptionValue | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'boolean') return raw;
  if (Array.isArray(raw)) return raw.map((text) => parseFlagValue(spec, String(text)) as string);
  return parseFlagValue(spec, raw as string);
}

const TRUE_TEXTS = new Set(['true', '1', 'yes', 'on']);
const FALSE_TEXTS = new Set(['false', '0', 'no', 'off']);

/** A variable's text: a list is comma-separated; a switch is true/false (1/0, yes/no, on/off). */
function environmentValue(spec: OptionSpec, text: string, variable: string): OptionValue {
  if (spec.kind === 'boolean') {
    const lower = text.trim().toLowerCase();
    if (TRUE_TEXTS.has(lower)) return true;
    if (FALSE_TEXTS.has(lower)) return false;
    throw new OptionError(`${variable} must be true or false, got '${text}'`);
  }
  if (spec.kind === 'strings') return text.split(',').map((item) => parseFlagValue(spec, item.trim(), variable) as string);
  return parseFlagValue(spec, text, variable);
}

/** A file's value: numbers as numbers or texts (`10GB`), lists as lists or one text, paths from the file's directory. */
function fileValue(spec: OptionSpec, value: unknown, field: string, baseDirectory: string): OptionValue {
  const text = (item: unknown): string => {
    if (typeof item === 'string' || typeof item === 'number') return String(item);
    throw new OptionError(`${field} must be ${spec.kind === 'integer' || spec.kind === 'size' ? 'a number' : 'a string'}, got ${JSON.stringify(item)}`);
  };
  switch (spec.kind) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw new OptionError(`${field} must be true or false, got ${JSON.stringify(value)}`);
    case 'strings': {
      const items = Array.isArray(value) ? value : [value];
      return items.map((item) => parseFlagValue(spec, text(item), field) as string);
    }
    case 'string': {
      const parsed = parseFlagValue(spec, text(value), field) as string;
      return isPathSetting(spec) ? resolve(baseDirectory, parsed) : parsed;
    }
    default:
      return parseFlagValue(spec, text(value), field);
  }
}

/** A setting naming a file or directory, read from the config file's directory. */
function isPathSetting(spec: OptionSpec): boolean {
  return spec.kind === 'string' && (spec.placeholder === 'path' || spec.placeholder === 'file');
}

/** `dynatwin config`'s table: each setting, its value and where it came from. */
export function formatConfiguration(configuration: Configuration): string {
  const rows = configuration.settings.map((setting) => [setting.spec.flag, showValue(setting), setting.kind === 'default' ? setting.origin || 'default' : `${setting.kind} ${setting.origin}`]);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const header = configuration.file === undefined ? `config file: none (${DEFAULT_CONFIG_FILE} in the working directory, --config or ${CONFIG_FILE_VARIABLE} names one)\n` : `config file: ${configuration.file}\n`;
  return header + 'precedence: flag > environment (DYNATWIN_<FLAG>) > config file > default\n\n' + rows.map((row) => `${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}`.trimEnd()).join('\n') + '\n';
}

function showValue(setting: Setting): string {
  const value = setting.value;
  if (value === undefined) return '-';
  // A secret in a value (the store URL's password) stays hidden: the table is pasted into issues, logged.
  if (setting.spec.shown !== undefined && typeof value === 'string') return setting.spec.shown(value);
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.join(',');
  return String(value);
}
