/**
 * `dynatwin recover --data-dir D [--dry-run]`: repairs a data directory whose write-ahead log is
 * damaged (start-up refused it: a bad frame followed by intact ones, wal.ts isTornTail), by
 * keeping the longest intact prefix as the live log and moving the rest aside, kept
 * (storage/log-recovery.ts), and saying exactly what was dropped: per range of frames the file,
 * the bytes, the frames, the writes and the tables they touched.
 *
 * Tables are named best effort: from the catalog records in LMDB and in the log itself (a table
 * created since the last checkpoint), by the table or index id at the head of each key; an id no
 * record names is printed as an id.
 */
import { existsSync } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { isTableRecordKey, ownerOfKey, TABLE_RECORDS_RANGE } from './engine/catalog.js';
import { parseSubcommand, usageError, type CommandIo } from './scenarios/subcommand.js';
import { claimDataDir, StartupError } from './server/data-dir.js';
import { codeOf } from './storage/directory.js';
import { logState, moveDamagedLogAside, rebuiltMark, replaceDamagedMark, type MovedAside } from './storage/log-recovery.js';
import { FRAMES_IN_FLIGHT_MAX } from './storage/logged.js';
import { CorruptLogError, decodeFrame, readCheckpointMark, segmentPath, surveyLog, type FrameRun, type LogBreak, type LogSurvey } from './storage/wal.js';

export const RECOVER_HELP = `Usage: dynatwin recover --data-dir <dir> [--dry-run]

Repairs a data directory whose write-ahead log is damaged: dynatwin refused to start, naming the
file and the byte of a bad frame that intact frames follow (a torn tail, which a crash leaves, is
cut at start-up by itself; damage never is). The log before the bad frame stays the live log;
the rest is moved aside into <dir>/damaged-log-<UTC time>/ and kept: a copy of the segment with
the bad frame as found, the later segments, a copy of wal-checkpoint. Nothing is deleted.

It prints what was dropped: per range of frames, the file, the byte range, the frames, the key
writes (stored keys put or removed: a PutItem is its item and its partition's counts, plus index
entries and stream records) and the tables whose items or index entries they were, with how
many; the same report is saved in the folder as RECOVERY.txt. dynatwin then starts on <dir> and serves every write before the bad frame.

A damaged checkpoint mark (wal-checkpoint) is rebuilt from the segments present, so start-up
replays all of them; the damaged mark is kept aside as found.

A sound log, or one ending in a torn tail, needs nothing: recover says so and changes nothing.
It refuses to run while a dynatwin server holds the directory.

Options:
  --data-dir <dir>   the data directory (required)
  --dry-run          print what would be dropped and moved aside; change nothing
  --help             print this help and exit

Exit status: 0 repaired, or nothing to recover; 1 it could not (the directory in use, missing or
unreadable); 2 bad flags.
`;

export async function runRecoverCommand(argv: readonly string[], io: CommandIo = process, now: () => Date = () => new Date()): Promise<number> {
  const options = {
    'data-dir': { type: 'string' },
    'dry-run': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const parsed = parseSubcommand('recover', argv, { options, help: RECOVER_HELP }, io);
  if (typeof parsed === 'number') return parsed;
  const dataDir = parsed.values['data-dir'];
  if (dataDir === undefined || dataDir === '') return usageError(io, 'recover', '--data-dir is required, e.g. dynatwin recover --data-dir ./dynatwin-data');
  const fail = (message: string): number => {
    io.stderr.write(`dynatwin recover: ${message}\n`);
    return 1;
  };
  const path = resolvePath(dataDir);
  try {
    if (!(await stat(path)).isDirectory()) return fail(`--data-dir ${path} is not a directory`);
  } catch (error) {
    return fail(codeOf(error) === 'ENOENT' ? `--data-dir ${path} does not exist` : `cannot read --data-dir ${path}: ${firstLine(error)}`);
  }
  let claim;
  try {
    claim = await claimDataDir(path);
  } catch (error) {
    if (error instanceof StartupError) return fail(error.message);
    throw error;
  }
  try {
    return await recoverClaimed(claim.path, parsed.values['dry-run'] === true, io, now);
  } catch (error) {
    return fail(firstLine(error));
  } finally {
    await claim.release();
  }
}

async function recoverClaimed(directory: string, dryRun: boolean, io: CommandIo, now: () => Date): Promise<number> {
  const say = (line: string): void => void io.stdout.write(`dynatwin recover: ${line}\n`);
  if (!(await markIntact(directory))) {
    const rebuilt = await rebuiltMark(directory);
    const report = [
      `the write-ahead log's checkpoint mark ${join(directory, 'wal-checkpoint')} is damaged: rebuilt as segment ${rebuilt.segment}, so start-up replays segments ${rebuilt.segments.length === 0 ? '(none present)' : rebuilt.segments.join(', ')}; segments a checkpoint had covered are replayed again, which changes nothing`,
    ];
    if (rebuilt.skipped.length > 0) report.push(`not replayed, moved aside: segments ${rebuilt.skipped.join(', ')}, below a gap in the numbers (only segments a checkpoint covered are ever removed, so these were covered; replayed, they would put back values the missing one had changed)`);
    if (dryRun) {
      for (const line of report) say(line);
      say(`dry run: nothing was changed; without --dry-run the damaged mark goes to ${join(directory, 'damaged-log-<UTC time>')}`);
      return 0;
    }
    const aside = await replaceDamagedMark(directory, rebuilt, now());
    report.push(movedLine(aside));
    await writeFile(join(aside.folder, 'RECOVERY.txt'), report.join('\n') + '\n', { flag: 'wx' });
    for (const line of report) say(line);
  }
  const survey = await surveyLog(directory);
  const state = logState(survey, FRAMES_IN_FLIGHT_MAX);
  if (state.kind === 'sound') {
    const frames = survey.replayed.reduce((count, segment) => count + segment.frames.length, 0);
    say(`nothing to recover: the write-ahead log in ${directory} is sound (${frames} frames in ${survey.replayed.length} segments after the last checkpoint)`);
    return 0;
  }
  const found = state.break;
  if (state.kind === 'torn') {
    say(`nothing to recover: the write-ahead log ends in a torn tail at ${found.path} byte ${found.offset} (a crash while a frame was being written), which start-up cuts by itself and logs`);
    return 0;
  }
  const names = await resourceNames(directory, survey, found);
  const report = [
    `the write-ahead log in ${directory} is damaged: ${breakDescription(found)}${found.incomplete ? ' (the search for intact frames after it stopped at its bound: more may follow)' : ''}`,
    `kept: every frame before it (${keptFrames(survey)} frames after the last checkpoint)`,
    ...droppedLines(found, names),
  ];
  if (dryRun) {
    for (const line of report) say(line);
    say(`dry run: nothing was changed; without --dry-run the dropped part goes to ${join(directory, 'damaged-log-<UTC time>')}`);
    return 0;
  }
  const aside = await moveDamagedLogAside(directory, found, now());
  report.push(movedLine(aside), `dynatwin now starts on ${directory} and serves the writes before the damage`);
  await writeFile(join(aside.folder, 'RECOVERY.txt'), report.join('\n') + '\n', { flag: 'wx' });
  for (const line of report) say(line);
  return 0;
}

/** Whether the checkpoint mark reads (or is absent); false when it is damaged. */
async function markIntact(directory: string): Promise<boolean> {
  try {
    await readCheckpointMark(directory);
    return true;
  } catch (error) {
    if (error instanceof CorruptLogError) return false;
    throw error;
  }
}

function keptFrames(survey: LogSurvey): number {
  return survey.replayed.reduce((count, segment) => count + segment.frames.length, 0);
}

/** Where the log breaks: a bad frame, or a segment cut short of the size it was prepared to (wal.ts PREPARED RECORDS). */
function breakDescription(found: LogBreak): string {
  if (found.preparedBytes === undefined) return `${found.path} has a bad frame at byte ${found.offset}`;
  return `${found.path} is cut short: ${found.fileBytes} bytes of the ${found.preparedBytes} it was prepared to (the rest was lost before recover ran); its whole frames end at byte ${found.offset}`;
}

/** The bad bytes (none when a cut-short segment ends at a frame's end), then each range of intact frames dropped, one line each. */
function droppedLines(found: LogBreak, names: ResourceNames): string[] {
  const firstRun = found.runs[0];
  const badEnd = firstRun !== undefined && firstRun.segment === found.segment ? firstRun.start : found.fileBytes;
  const lines = badEnd === found.offset ? [] : [`dropped: ${found.path} bytes ${found.offset}-${badEnd}: the bad frame and what follows it up to the next intact frame (${badEnd - found.offset} bytes, unreadable)`];
  for (const run of found.runs) lines.push(`dropped: ${runLine(run, found, names)}`);
  const empty = found.laterSegments.length - new Set(found.runs.map((run) => run.segment).filter((segment) => segment !== found.segment)).size;
  if (empty > 0) lines.push(`dropped: ${empty} later segment${empty === 1 ? '' : 's'} holding no intact frame (moved aside as well)`);
  return lines;
}

function runLine(run: FrameRun, found: LogBreak, names: ResourceNames): string {
  let puts = 0;
  let removes = 0;
  let other = 0;
  const perTable = new Map<string, number>();
  for (const frame of run.frames) {
    for (const op of decodeFrame(frame)) {
      if (op.json === undefined) removes++;
      else puts++;
      const table = names.tableOf(op.key);
      if (table === undefined) other++;
      else perTable.set(table, (perTable.get(table) ?? 0) + 1);
    }
  }
  const file = segmentPath(dirname(found.path), run.segment);
  const tables = [...perTable].sort((a, b) => b[1] - a[1]).map(([name, writes]) => `${name} (${writes})`);
  const touched = tables.length === 0 ? 'no table' : `tables ${tables.join(', ')}`;
  const others = other === 0 ? '' : `; ${other} other keys (catalog, partition counts, streams)`;
  return `${file} bytes ${run.start}-${run.end}: ${run.frames.length} frames, ${puts + removes} key writes (${puts} puts, ${removes} removes); ${touched}${others}`;
}

function movedLine(aside: MovedAside): string {
  const files = [...aside.copied.map((name) => `${name} (a copy, as found)`), ...aside.moved];
  return `moved aside, kept: ${aside.folder}: ${files.join(', ')}`;
}

/** Table names by the id at the head of a key (a table's item, or an index's entry: its table). */
interface ResourceNames {
  tableOf(key: Uint8Array): string | undefined;
}

async function resourceNames(directory: string, survey: LogSurvey, found: LogBreak): Promise<ResourceNames> {
  const tables = new Map<number, string>();
  const indexes = new Map<number, string>();
  const learn = (record: unknown): void => {
    if (typeof record !== 'object' || record === null) return;
    const name: unknown = Reflect.get(record, 'name');
    const id: unknown = Reflect.get(record, 'id');
    if (typeof name !== 'string' || typeof id !== 'number') return;
    tables.set(id, name);
    for (const field of ['globalSecondaryIndexes', 'localSecondaryIndexes']) {
      const list: unknown = Reflect.get(record, field);
      if (!Array.isArray(list)) continue;
      for (const index of list as unknown[]) {
        const indexId: unknown = typeof index === 'object' && index !== null ? Reflect.get(index, 'id') : undefined;
        if (typeof indexId === 'number') indexes.set(indexId, name);
      }
    }
  };
  // LMDB first (older), then the log in order: a later record of the same table wins.
  if (existsSync(join(directory, 'data.mdb'))) {
    try {
      const { LmdbStorage } = await import('./storage/lmdb.js');
      const base = await LmdbStorage.open({ path: directory, durability: 'commit' });
      try {
        for (const entry of base.range(TABLE_RECORDS_RANGE)) learn(entry.value);
      } finally {
        await base.close();
      }
    } catch {
      // Best effort: without the catalog, tables are named by id.
    }
  }
  const frames = [...survey.replayed.flatMap((segment) => segment.frames), ...found.runs.flatMap((run) => run.frames)];
  for (const frame of frames) {
    for (const op of decodeFrame(frame)) {
      if (op.json === undefined || !isTableRecordKey(op.key)) continue;
      try {
        learn(JSON.parse(op.json));
      } catch {
        // A record that does not parse names nothing.
      }
    }
  }
  return {
    tableOf(key) {
      const owner = ownerOfKey(key);
      if (owner === undefined) return undefined;
      const name = owner.kind === 'table' ? tables.get(owner.id) : indexes.get(owner.id);
      return name ?? `${owner.kind} id ${owner.id}`;
    },
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
