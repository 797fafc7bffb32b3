/**
 * `dynatwin recover`'s work on a damaged write-ahead log (wal.ts LogBreak that is not a torn
 * tail): keep the longest intact prefix as the live log, and move everything else aside, into a
 * folder of the data directory, kept and never deleted.
 *
 * What goes aside: a copy of the segment where the log breaks, whole and as found (the live one is
 * then cut at the bad frame), the later segments themselves (moved, not copied), and a copy of the
 * checkpoint mark. The live directory and the folder together hold every byte there was.
 *
 * The order makes a crash of recover itself harmless: the copies are made and synced, the later
 * segments renamed (both directories synced), and only then is the live segment cut. Interrupted
 * before the cut, the live log is still damaged (start-up refuses again) and recover can run again
 * (into a new folder); no step deletes anything.
 */
import { constants as fsConstants } from 'node:fs';
import { access, copyFile, mkdir, open, rename } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { codeOf } from './directory.js';
import { isTornTail, listSegments, preparedRecordPath, segmentPath, syncDirectory, truncateSegment, writeCheckpointMark, type LogBreak, type LogSurvey } from './wal.js';

/** What the survey says: nothing to do, a torn tail start-up cuts by itself, or damage recover is for. */
export type LogState = { readonly kind: 'sound' } | { readonly kind: 'torn'; readonly break: LogBreak } | { readonly kind: 'damaged'; readonly break: LogBreak };

export function logState(survey: LogSurvey, inFlightFramesMax: number): LogState {
  const found = survey.break;
  if (found === undefined) return { kind: 'sound' };
  return isTornTail(found, inFlightFramesMax) ? { kind: 'torn', break: found } : { kind: 'damaged', break: found };
}

const CHECKPOINT_MARK_FILE = 'wal-checkpoint';
/** Folders tried when one of the same second exists already (recover run twice within a second). */
const ASIDE_NAME_ATTEMPTS_MAX = 100;

/** The folder the damaged log goes to: `damaged-log-<UTC time>` (no colons: not every file system allows them). */
export function asideFolderName(now: Date, attempt: number): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return attempt === 0 ? `damaged-log-${stamp}` : `damaged-log-${stamp}-${attempt + 1}`;
}

/** The files moved or copied aside, by name, and the folder. */
export interface MovedAside {
  readonly folder: string;
  /** Copies (the live file stays, the break's segment cut at the bad frame). */
  readonly copied: readonly string[];
  /** Moved out of the live directory. */
  readonly moved: readonly string[];
}

/** Moves the damaged part of the log aside and cuts the live log at the bad frame (see the file comment). */
export async function moveDamagedLogAside(directory: string, found: LogBreak, now: Date): Promise<MovedAside> {
  const folder = await makeAsideFolder(directory, now);
  const copied: string[] = [];
  await copyDurably(found.path, join(folder, basename(found.path)));
  copied.push(basename(found.path));
  // Its prepared record too (wal.ts PREPARED RECORDS): the live one goes with the cut.
  const record = preparedRecordPath(directory, found.segment);
  if (await exists(record)) {
    await copyDurably(record, join(folder, basename(record)));
    copied.push(basename(record));
  }
  const mark = join(directory, CHECKPOINT_MARK_FILE);
  if (await exists(mark)) {
    await copyDurably(mark, join(folder, CHECKPOINT_MARK_FILE));
    copied.push(CHECKPOINT_MARK_FILE);
  }
  await syncDirectory(folder);
  const moved: string[] = [];
  for (const segment of found.laterSegments) moved.push(...(await moveSegmentAside(directory, segment, folder)));
  await syncDirectory(folder);
  await syncDirectory(directory);
  // Last: until here the live log is as it was (truncateSegment removes its record first).
  await truncateSegment(directory, found.segment, found.offset);
  return { folder, copied, moved };
}

/**
 * A damaged checkpoint mark (wal.ts readCheckpointMark) rebuilt from the segments present: the
 * mark becomes the one before the last unbroken run of segment numbers, so start-up replays that
 * run. Segments after the true mark are never removed (only covered ones are, and an empty spare
 * or current one at the top), so they are all present, in one run; below them may be covered
 * segments a crash or a failed removal left (removal is lowest first, but a failed one is
 * skipped). Those in the same run are replayed again, in order, before the later ones: LMDB
 * already holds their writes and every later write is replayed after them, so the state ends the
 * same. A covered segment below a gap is left out: replayed, it would put back values the missing
 * segment had changed; it is moved aside, kept. The damaged mark is copied aside first, as found.
 */
export interface RebuiltMark {
  readonly segment: number;
  /** The segments start-up will replay, lowest first. */
  readonly segments: readonly number[];
  /** Segments below a gap, left out (covered by any mark a checkpoint could have written). */
  readonly skipped: readonly number[];
}

export async function rebuiltMark(directory: string): Promise<RebuiltMark> {
  let segments: number[];
  try {
    segments = await listSegments(directory);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    segments = [];
  }
  if (segments.length === 0) return { segment: 0, segments, skipped: [] };
  let runStart = segments.length - 1;
  while (runStart > 0 && segments[runStart - 1] === segments[runStart]! - 1) runStart--;
  return { segment: segments[runStart]! - 1, segments: segments.slice(runStart), skipped: segments.slice(0, runStart) };
}

/** Copies the damaged mark aside, moves the segments below a gap aside (start-up would delete them as covered), then writes the rebuilt mark. */
export async function replaceDamagedMark(directory: string, rebuilt: RebuiltMark, now: Date): Promise<MovedAside> {
  const folder = await makeAsideFolder(directory, now);
  await copyDurably(join(directory, CHECKPOINT_MARK_FILE), join(folder, CHECKPOINT_MARK_FILE));
  await syncDirectory(folder);
  const moved: string[] = [];
  for (const segment of rebuilt.skipped) moved.push(...(await moveSegmentAside(directory, segment, folder)));
  await syncDirectory(folder);
  await syncDirectory(directory);
  // Last: until here the live mark is as it was.
  await writeCheckpointMark(directory, rebuilt.segment);
  return { folder, copied: [CHECKPOINT_MARK_FILE], moved };
}

/**
 * Moves a segment into the folder, its prepared record (if any) first: a record left in the
 * live directory would speak for a later segment of that number. Answers the names moved.
 */
async function moveSegmentAside(directory: string, segment: number, folder: string): Promise<string[]> {
  const moved: string[] = [];
  const record = preparedRecordPath(directory, segment);
  if (await exists(record)) {
    await rename(record, join(folder, basename(record)));
    moved.push(basename(record));
  }
  const path = segmentPath(directory, segment);
  await rename(path, join(folder, basename(path)));
  moved.push(basename(path));
  return moved;
}

async function makeAsideFolder(directory: string, now: Date): Promise<string> {
  for (let attempt = 0; attempt < ASIDE_NAME_ATTEMPTS_MAX; attempt++) {
    const folder = join(directory, asideFolderName(now, attempt));
    try {
      await mkdir(folder);
      await syncDirectory(directory);
      return folder;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
  }
  throw new Error(`no free name for a folder of the damaged log in ${directory} after ${ASIDE_NAME_ATTEMPTS_MAX} attempts`);
}

/** Copies a file (never over an existing one) and syncs the copy. */
async function copyDurably(from: string, to: string): Promise<void> {
  await copyFile(from, to, fsConstants.COPYFILE_EXCL);
  const handle = await open(to, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
}
