/**
 * `dynatwin simulate <scenario.json> | --example <name> [--duration <s>] [--json <file>] [--report <file>.html] [--quiet]`:
 * the command around simulate(). A bad file or flag is one line on stderr and exit code 2, never a
 * stack trace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { shippedPath } from '../package-files.js';
import { findExample, shippedExamples } from './examples.js';
import { parseScenarioText, scenarioTextError } from './scenario-text.js';
import { parseSubcommand, usageError, type CommandIo } from './subcommand.js';
import { formatSummary, jsonDocument } from './report.js';
import { renderHtmlReport } from './report-html.js';
import { ScenarioError } from './schema.js';
import { simulate, type SimulationProgress } from './simulate.js';
import { parsePrices, type PriceTable } from './pricing.js';

/** The help text; the paths it names are where this installation keeps them. */
export function simulateHelp(): string {
  return `Usage: dynatwin simulate <scenario.json|.yaml> [options]
       dynatwin simulate --example <name> [options]

Runs a scenario (${shippedPath('docs/SCENARIOS.md')}) in virtual time against the engine, in
process: each design variant gets its own in-memory server on a manual clock; the workload's phases
are issued tick by tick. Prints a summary per variant with findings.

Options:
  --example <name>  run a shipped example (${shippedExamples().map((example) => example.name).join(', ')}; dynatwin examples lists them)
  --duration <s>    simulate only the first <s> seconds of the workload (1 to ${DURATION_SECONDS_MAX})
  --json <file>     also write totals, per-second series and findings as JSON
  --report <file>   also write a self-contained HTML page (charts, heat maps, findings)
  --fidelity <items|flow>  items: every item a request through the engine (the default);
                    flow: each operation's demand applied per tick as flows over the hash
                    space, through the same capacity model (much faster; ${shippedPath('docs/SCENARIOS.md')})
  --prices <file>   the price table of the bill, JSON: region, writeRequestUnitsPerMillion,
                    readRequestUnitsPerMillion, writeCapacityUnitHour, readCapacityUnitHour,
                    storageGbMonth (dollars; unset ones stay us-east-1 list prices)
  --quiet           no progress line on stderr
  --help            print this help and exit
`;
}

/** --duration's bound: a day, the longest phase a scenario may have. */
const DURATION_SECONDS_MAX = 24 * 3600;

/** Runs the command; answers the exit code (0 done, 1 failure inside the simulation, 2 bad input). */
export async function runSimulateCommand(argv: readonly string[], io: CommandIo = process): Promise<number> {
  const usage = (message: string): number => usageError(io, 'simulate', message);
  const options = { example: { type: 'string' }, duration: { type: 'string' }, json: { type: 'string' }, report: { type: 'string' }, fidelity: { type: 'string' }, prices: { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const parsed = parseSubcommand('simulate', argv, { options, help: simulateHelp(), positionals: true }, io);
  if (typeof parsed === 'number') return parsed;
  const source = scenarioSource(parsed.positionals, parsed.values.example);
  if ('problem' in source) return usage(source.problem);
  const file = source.file;
  let document: unknown;
  try {
    document = parseScenarioText(file, readFileSync(file, 'utf8'));
  } catch (error) {
    return usage(`${file}: ${scenarioTextError(error)}`);
  }
  if (parsed.values.duration !== undefined) {
    const seconds = /^\d+$/.test(parsed.values.duration) ? Number(parsed.values.duration) : NaN;
    if (!(seconds >= 1 && seconds <= DURATION_SECONDS_MAX)) return usage(`--duration must be a whole number of seconds from 1 to ${DURATION_SECONDS_MAX}, got '${parsed.values.duration}'`);
    document = withDurationLimit(document, seconds);
  }
  const fidelity = parsed.values.fidelity;
  if (fidelity !== undefined && fidelity !== 'items' && fidelity !== 'flow') return usage(`--fidelity must be items or flow, got '${fidelity}'`);
  let prices: PriceTable | undefined;
  if (parsed.values.prices !== undefined) {
    try {
      prices = parsePrices(JSON.parse(readFileSync(parsed.values.prices, 'utf8')), '--prices');
    } catch (error) {
      return usage(`--prices ${parsed.values.prices}: ${error instanceof ScenarioError ? error.message : error instanceof Error ? error.message : String(error)}`);
    }
  }
  const progress = parsed.values.quiet ? undefined : progressPrinter(io.stderr);
  let report;
  try {
    report = await simulate(document, { ...(progress === undefined ? {} : { onProgress: progress.update }), ...(fidelity === undefined ? {} : { fidelity }), ...(prices === undefined ? {} : { prices }) });
  } catch (error) {
    progress?.end();
    if (error instanceof ScenarioError) return usage(`${file}: ${error.message}`);
    io.stderr.write(`dynatwin simulate: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  progress?.end();
  io.stdout.write(formatSummary(report));
  const outputs: [string, string | undefined, () => string][] = [
    ['--json', parsed.values.json, () => JSON.stringify(jsonDocument(report)) + '\n'],
    ['--report', parsed.values.report, () => renderHtmlReport(report, { scenariosDoc: shippedPath('docs/SCENARIOS.md') })],
  ];
  for (const [flag, path, render] of outputs) {
    if (path === undefined) continue;
    try {
      writeFileSync(path, render());
    } catch (error) {
      return usage(`${flag} ${path}: cannot write it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    // Where it went, in full: a relative name is read against a working directory the user may
    // not have in mind (npm scripts run in the package's).
    io.stdout.write(`${flag === '--json' ? 'JSON' : 'HTML report'} written to ${resolve(path)}\n`);
  }
  return 0;
}

/** The scenario file to read: one positional, or a shipped example by name; never both. */
function scenarioSource(positionals: readonly string[], example: string | undefined): { file: string } | { problem: string } {
  // The headline example (docs/HOT-PARTITIONS.md) when shipped.
  const headline = findExample('status-gsi')?.name ?? shippedExamples()[0]?.name ?? 'status-gsi';
  const hint = `e.g. dynatwin simulate my-scenario.json, or dynatwin simulate --example ${headline}`;
  if (example === undefined) return positionals.length === 1 ? { file: positionals[0]! } : { problem: `give exactly one scenario file, ${hint}` };
  if (positionals.length > 0) return { problem: `give a scenario file or --example, not both (${hint})` };
  const found = findExample(example);
  if (found === undefined) return { problem: `--example: no example named '${example}'; the examples: ${shippedExamples().map((shipped) => shipped.name).join(', ')}` };
  return { file: found.path };
}

/**
 * The document with each workload cut to its first `seconds`: later phases dropped, the phase
 * running at that moment shortened. Anything not shaped as a workload is left for the schema's
 * check to name.
 */
export function withDurationLimit(document: unknown, seconds: number): unknown {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return document;
  const root = { ...(document as Record<string, unknown>) };
  root['workload'] = limitWorkload(root['workload'], seconds);
  if (Array.isArray(root['variants'])) {
    root['variants'] = root['variants'].map((variant: unknown) =>
      typeof variant === 'object' && variant !== null && 'workload' in variant ? { ...variant, workload: limitWorkload(Reflect.get(variant, 'workload'), seconds) } : variant,
    );
  }
  if (root['workload'] === undefined) delete root['workload'];
  return root;
}

function limitWorkload(workload: unknown, seconds: number): unknown {
  if (typeof workload !== 'object' || workload === null) return workload;
  const phases: unknown = Reflect.get(workload, 'phases');
  if (!Array.isArray(phases)) return workload;
  const kept: unknown[] = [];
  let startSeconds = 0;
  for (const phase of phases) {
    const duration: unknown = typeof phase === 'object' && phase !== null ? Reflect.get(phase, 'durationSeconds') : undefined;
    if (typeof duration !== 'number') return workload;
    if (startSeconds >= seconds) break;
    kept.push(startSeconds + duration > seconds ? { ...phase, durationSeconds: seconds - startSeconds } : phase);
    startSeconds += duration;
  }
  return { ...workload, phases: kept };
}

/**
 * The progress line: redrawn in place on a terminal; on a pipe or file, a line at each tenth of
 * the run, so logs stay short.
 */
function progressPrinter(stream: NodeJS.WriteStream | NodeJS.WritableStream): { update: (progress: SimulationProgress) => void; end: () => void } {
  const tty = 'isTTY' in stream && stream.isTTY === true;
  let lastTenth = -1;
  let drawn = false;
  const startedMs = performance.now();
  return {
    update(progress) {
      const seconds = Math.min(...progress.secondsByVariant);
      // A run of hours is followed in simulated hours.
      const line =
        (progress.totalSeconds > 7200 ? `simulated ${(seconds / 3600).toFixed(1)}/${progress.totalSeconds / 3600} h` : `simulated ${seconds}/${progress.totalSeconds} s`) +
        (progress.secondsByVariant.length > 1 ? ` (variants: ${progress.secondsByVariant.map((done) => (progress.totalSeconds > 7200 ? `${(done / 3600).toFixed(1)} h` : String(done))).join(', ')})` : '') +
        ` · throttles so far ${progress.throttled.toLocaleString('en-US')} · ${((performance.now() - startedMs) / 1000).toFixed(1)} s wall`;
      if (tty) {
        stream.write(`\r${line}\x1b[K`);
        drawn = true;
        return;
      }
      const tenth = Math.floor((seconds / progress.totalSeconds) * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        stream.write(line + '\n');
      }
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
