/**
 * `dynatwin analyze --endpoint <url> --table <t> [--minutes <n>] [--json]`: the findings for a
 * table of a running dynatwin (analyze.ts). A bad flag is one line and exit code 2; a twin that
 * cannot be reached or read is one line and exit code 1.
 */
import { shippedPath } from '../package-files.js';
import { parseSubcommand, usageError, type CommandIo } from './subcommand.js';
import { ANALYZE_MINUTES_MAX, AnalyzeError, analyzeTable, type AnalyzeReport } from './analyze.js';
import { environmentCredentials } from './sign-request.js';

/** The help text; the path it names is where this installation keeps it. */
export function analyzeHelp(): string {
  return `Usage: dynatwin analyze --endpoint <url> --table <name> [options]

Reads a running dynatwin's table over HTTP — its key schema (DescribeTable), every partition's units
and throttles per second (GET /dynatwin/tables/<t>/heatmap), and its most accessed keys (Contributor
Insights, when enabled) — and prints the findings a simulation would give
(${shippedPath('docs/SCENARIOS.md')}).

Options:
  --endpoint <url>   the twin, e.g. http://127.0.0.1:8000 (required)
  --table <name>     the table, with its GSIs (required)
  --minutes <n>      per-second history to read, 1 .. ${ANALYZE_MINUTES_MAX} (default ${ANALYZE_MINUTES_MAX})
  --token <token>    a twin under --auth verify: the inspection token it printed at start-up
                     (default: $DYNATWIN_INSPECTION_TOKEN); with AWS_ACCESS_KEY_ID and
                     AWS_SECRET_ACCESS_KEY set, every request is also signed with them
  --json             print the report as JSON
  --help             print this help and exit
`;
}

export async function runAnalyzeCommand(argv: readonly string[], io: CommandIo = process, environment: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const usage = (message: string): number => usageError(io, 'analyze', message);
  const options = { endpoint: { type: 'string' }, table: { type: 'string' }, minutes: { type: 'string' }, token: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const parsed = parseSubcommand('analyze', argv, { options, help: analyzeHelp() }, io);
  if (typeof parsed === 'number') return parsed;
  const flags = parsed.values;
  if (flags.endpoint === undefined) return usage('--endpoint is required, e.g. --endpoint http://127.0.0.1:8000');
  if (flags.table === undefined || flags.table === '') return usage('--table is required');
  const minutes = flags.minutes === undefined ? ANALYZE_MINUTES_MAX : Number(flags.minutes);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > ANALYZE_MINUTES_MAX) return usage(`--minutes must be a whole number from 1 to ${ANALYZE_MINUTES_MAX}, got ${JSON.stringify(flags.minutes)}`);
  if (!/^https?:\/\//.test(flags.endpoint)) return usage(`--endpoint must be a URL such as http://127.0.0.1:8000, got ${JSON.stringify(flags.endpoint)}`);
  let report: AnalyzeReport;
  try {
    const token = flags.token ?? emptyToUndefined(environment.DYNATWIN_INSPECTION_TOKEN);
    const credentials = environmentCredentials(environment);
    const region = emptyToUndefined(environment.AWS_REGION) ?? emptyToUndefined(environment.AWS_DEFAULT_REGION);
    report = await analyzeTable({
      endpoint: flags.endpoint,
      table: flags.table,
      minutes,
      ...(token === undefined ? {} : { token }),
      ...(credentials === undefined ? {} : { credentials }),
      ...(region === undefined ? {} : { region }),
    });
  } catch (error) {
    if (!(error instanceof AnalyzeError)) throw error;
    io.stderr.write(`dynatwin analyze: ${error.message}\n`);
    return 1;
  }
  io.stdout.write(flags.json ? JSON.stringify(report) + '\n' : formatAnalysis(report));
  return 0;
}

export function formatAnalysis(report: AnalyzeReport): string {
  const lines = [`Table ${report.table} (${report.partitionModel} partition model), the last ${report.seconds} s of per-second history`];
  for (const resource of report.resources) {
    lines.push(
      `  ${resource.name}: ${resource.partitions} partition${resource.partitions === 1 ? '' : 's'} · ${whole(resource.writeUnits)} write units · ${whole(resource.readUnits)} read units · ` +
        `${whole(resource.throttleEvents)} throttle events · Contributor Insights ${resource.contributorInsights ? 'on' : 'off (key findings need it: UpdateContributorInsights)'}`,
    );
  }
  if (report.findings.length === 0) lines.push('  findings: none');
  for (const finding of report.findings) {
    lines.push(`  [${finding.severity}] ${finding.code} on ${finding.resource}: ${finding.summary}`);
    for (const fix of finding.fixes) lines.push(`    fix: ${fix}`);
  }
  return lines.join('\n') + '\n';
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
