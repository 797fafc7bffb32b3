/**
 * `dynatwin simulate <scenario.json> [--json <file>] [--report <file>.html] [--quiet]`: the command around simulate().
 * A bad file or flag is one line on stderr and exit code 2, never a stack trace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseScenarioText, scenarioTextError } from './scenario-text.js';
import { parseSubcommand, usageError, type CommandIo } from './subcommand.js';
import { formatSummary, jsonDocument } from './report.js';
import { renderHtmlReport } from './report-html.js';
import { ScenarioError } from './schema.js';
import { simulate, type SimulationProgress } from './simulate.js';
import { parsePrices, type PriceTable } from './pricing.js';

export const SIMULATE_HELP = `Usage: dynatwin simulate <scenario.json> [options]

Runs a scenario (docs/SCENARIOS.md) in virtual time against the engine, in process: each design
variant gets its own in-memory server on a manual clock; the workload's phases are issued tick by
tick. Prints a summary per variant with findings.

Options:
  --json <file>   also write totals, per-second series and findings as JSON
  --report <file> also write a self-contained HTML page (charts, heat maps, findings)
  --fidelity <items|flow>  items: every item a request through the engine (the default);
                  flow: each operation's demand applied per tick as flows over the hash
                  space, through the same capacity model (much faster; docs/SCENARIOS.md)
  --prices <file> the price table of the bill, JSON: region, writeRequestUnitsPerMillion,
                  readRequestUnitsPerMillion, writeCapacityUnitHour, readCapacityUnitHour,
                  storageGbMonth (dollars; unset ones stay us-east-1 list prices)
  --quiet         no progress line on stderr
  --help          print this help and exit
`;

/** Runs the command; answers the exit code (0 done, 1 failure inside the simulation, 2 bad input). */
export async function runSimulateCommand(argv: readonly string[], io: CommandIo = process): Promise<number> {
  const usage = (message: string): number => usageError(io, 'simulate', message);
  const parsed = parseSubcommand('simulate', argv, { options: { json: { type: 'string' }, report: { type: 'string' }, fidelity: { type: 'string' }, prices: { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, help: SIMULATE_HELP, positionals: true }, io);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length !== 1) return usage('give exactly one scenario file, e.g. dynatwin simulate examples/scenarios/status-gsi.json');
  const file = parsed.positionals[0]!;
  let document: unknown;
  try {
    document = parseScenarioText(file, readFileSync(file, 'utf8'));
  } catch (error) {
    return usage(`${file}: ${scenarioTextError(error)}`);
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
    ['--report', parsed.values.report, () => renderHtmlReport(report)],
  ];
  for (const [flag, path, render] of outputs) {
    if (path === undefined) continue;
    try {
      writeFileSync(path, render());
    } catch (error) {
      return usage(`${flag} ${path}: cannot write it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  return 0;
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
