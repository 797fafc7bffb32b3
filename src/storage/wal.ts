/**
 * The write-ahead log of the logged store (logged.ts): its record format, its segment files, and
 * reading it back after a crash.
 *
 * A log is a chain of segment files `wal-<12-digit number>.log` in the data directory, written
 * in order; a checkpoint (logged.ts) starts a new segment, as does a segment that is full, and once everything up to segment N
 * is durable in LMDB it records N in `wal-checkpoint` (written aside and renamed over, so it is
 * whole or absent) and deletes the segments up to N. Recovery replays the segments after N.
 *
 * A segment is a sequence of frames, one per group commit (every write of one flush window):
 *
 *   frame   = payload length (u32 LE) | crc32 of payload (u32 LE) | payload
 *   payload = op*
 *   op      = 0x01 | key length (u16 LE) | key | value length (u32 LE) | value as JSON (UTF-8)   (put)
 *           | 0x02 | key length (u16 LE) | key                                                  (remove)
 *           | 0x03 | key length (u16 LE) | key | head length (u32 LE) | head | tail length (u32 LE) | tail
 *                  | offset (u32 LE) | length (u32 LE)                                     (spliced put)
 *
 * A spliced put's value is head + the `length` bytes at `offset` of the same payload (an earlier
 * put's value) + tail: a stream record that carries the item its write put logs the item once
 * (FrameBuilder.putSpliced). Logs written before 0x03 existed decode as they always did.
 *
 * A frame is the unit of atomicity: it is applied whole or not at all, and every write of a group
 * is inside its one frame, so recovery never sees half a write.
 *
 * Where the log ends. Only zeros from a segment's last whole frame to its end are a clean end (a
 * prepared segment's unused part); the log goes on in the next segment. Anything else is a break:
 * a frame cut short, failing its crc or of impossible length, a hole (zeros) with something after
 * it, garbage. A break is either a torn tail or damage, told apart by what follows it (surveyLog
 * searches the rest of its segment and every later one for intact frames, findFrames):
 *   - torn tail: what a crash leaves. The store writes frames into one segment at a time (the
 *     frames in flight are drained before the log moves on), at most FRAMES_IN_FLIGHT_MAX (2,
 *     logged.ts) at once, each at the position fixed when it was sent, and everything sent before
 *     them is on the disk. So a crash can leave, in the last segment holding frames only, a hole
 *     or a partial frame, followed by at most FRAMES_IN_FLIGHT_MAX - 1 intact frames (in flight
 *     too, so never acknowledged: a group is acknowledged only once every earlier frame is
 *     written) and then zeros or bytes of no frame; later segments hold only zeros (prepared,
 *     unused) or nothing. Start-up cuts it: the file is truncated at the break, later segments
 *     are removed, and the cut is logged (file, offset, bytes).
 *   - damage: anything more, i.e. intact frames past the in-flight window, or a later segment
 *     holding anything but zeros (a frame, or bytes that are none). Those are acknowledged writes
 *     behind a bad frame (a flipped bit, a bad sector, a file written over); no crash makes that,
 *     and cutting there would silently drop them. Start-up refuses, with one message naming the
 *     file, the offset and the intact frames that follow, and changes nothing on the disk.
 *     `dynatwin recover` (log-recovery.ts) keeps the prefix and moves the rest aside.
 *    - cut short: a prepared segment (PREPARED RECORDS below) whose file is shorter than the size
 *     recorded beside it when it was prepared. No crash shortens a file, and every write into a
 *     prepared segment falls inside its prepared bytes or past them, so only something else cut
 *     it (a copy cut short, a file system that lost the file's end): damage, refused like the
 *     above, whatever follows, the message naming the file, its size and its prepared size. The
 *     break is where its whole frames end (its survey's runs, later segments: as for damage).
 * What cannot be told apart: damage to the last frame (or the last two, the second-to-last bad)
 * looks like a torn tail and is cut as one, logged; so does a PLAIN segment (no record: the first
 * after open, every one under --durability commit, any from before records existed) cut short,
 * since a crash can leave such a file ending mid-frame. And under `--durability commit` a machine
 * crash may leave holes the OS had not written back anywhere in the last segments: that reads as
 * damage, and recover keeps the longest intact prefix, which is what cutting there would keep.
 * A frame whose crc matches but whose ops do not decode cannot come from a torn write either; it
 * is refused loudly.
 *
 * A frame whose write FAILED (ENOSPC, EIO) while the process lives is never left for recovery to
 * judge: its bytes may be partly on the disk, and a later frame in flight with it may be wholly
 * there, so left alone they would be replayed (writes that were refused) or look like damage
 * followed by intact frames. The writer (logged.ts DISK FAULTS) waits until no frame write is
 * outstanding, truncates the segment back to the end of its last acknowledged frame, syncs, and
 * only then answers the failed frames' writes (503: not applied); the log then goes on in a new,
 * prepared segment. If the truncation fails too, those writes get a 500 (their outcome is
 * unknown) and it is retried before any frame is written again.
 *
 * The stream change log (streams/records.ts) is not this log: stream records are ordinary stored
 * keys, written in the same write() as the item they describe, so they reach the write-ahead log
 * and LMDB like any other key. Keeping them apart is deliberate: this log is cut at every
 * checkpoint (seconds to minutes of writes), stream records live 24 hours and are read by key
 * range (GetShardIterator, GetRecords); one log serving both would have to be kept for a day and
 * indexed, which is what the ordered store already does.
 */
import { constants as fsConstants, write as fsWrite } from 'node:fs';
import { open, readdir, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { codeOf, DamagedFileError } from './directory.js';

/**
 * Log bytes written since the last checkpoint after which the next one starts (`--checkpoint-log-size`).
 * It bounds the memtable's memory and the replay after a crash (tens of milliseconds per MB).
 */
export const CHECKPOINT_LOG_BYTES_DEFAULT = 32 * 1024 * 1024;

export const FRAME_HEADER_BYTES = 8;
const OP_PUT = 0x01;
const OP_REMOVE = 0x02;
/**
 * A put whose value's JSON is head + (bytes of an earlier put's value in the same frame) + tail:
 * a stream record carrying the item its write put (FrameBuilder.putSpliced). Logs written before
 * it have no such op; a store that predates it cannot read a log that has one (no downgrade).
 */
const OP_PUT_SPLICED = 0x03;
/** Largest frame payload; a group that would pass it is refused (u32 length field, and memory). */
export const FRAME_PAYLOAD_BYTES_MAX = 1 << 30;
/** A reused frame buffer larger than this is dropped after its group, not kept for the next. */
const FRAME_BUFFER_KEEP_BYTES = 1 << 20;
const FRAME_BUFFER_INITIAL_BYTES = 64 * 1024;

const SEGMENT_PATTERN = /^wal-(\d{12})\.log$/;
const CHECKPOINT_FILE = 'wal-checkpoint';
const CHECKPOINT_TEMPORARY_FILE = 'wal-checkpoint.tmp';
const PREPARED_RECORD_SUFFIX = '.prepared';
const PREPARED_RECORD_BYTES_MAX = 256;

/** One change read back from the log. `json` undefined: a remove. */
export interface LoggedOp {
  readonly key: Uint8Array;
  readonly json: string | undefined;
  /**
   * Where the value's JSON bytes are in the frame's payload, and how many there are (a put); for
   * a spliced put, the bytes of the earlier value it embeds, its JSON being head + them + tail.
   */
  readonly valueOffset: number;
  readonly valueBytes: number;
  readonly head: string | undefined;
  readonly tail: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// crc32

/** zlib.crc32 came with Node 20.15; engines allow any Node 20, so older ones get a table-driven copy. */
const nativeCrc32: ((data: Uint8Array) => number) | undefined = typeof Reflect.get(zlib, 'crc32') === 'function' ? (zlib.crc32 as (data: Uint8Array) => number) : undefined;

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE, as zlib and gzip) of data, unsigned. */
export function crc32(data: Uint8Array): number {
  if (nativeCrc32 !== undefined) return nativeCrc32(data);
  crcTable ??= makeCrcTable();
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function makeCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

// ---------------------------------------------------------------------------------------------
// Encoding one frame

/** Where a value's JSON bytes are: in a frame (offset from its first byte), or in a segment file. */
export interface ValueSpan {
  readonly offset: number;
  readonly bytes: number;
}

/**
 * The frame of one group being gathered: ops are encoded as the writes make them, so sealing it
 * is only the header. A write that throws is cut back to its mark.
 */
export class FrameBuilder {
  #buffer: Buffer = Buffer.allocUnsafe(FRAME_BUFFER_INITIAL_BYTES);
  #length = FRAME_HEADER_BYTES;

  /** Bytes of ops so far (the payload). */
  get payloadBytes(): number {
    return this.#length - FRAME_HEADER_BYTES;
  }

  /** A position to cut back to (see reset). */
  mark(): number {
    return this.#length;
  }

  /** Drops every op encoded after `mark`. */
  reset(mark: number): void {
    if (mark < FRAME_HEADER_BYTES || mark > this.#length) throw new Error(`frame mark ${mark} is outside 8..${this.#length}`);
    this.#length = mark;
  }

  /**
   * Encodes a put; answers where its value's bytes start in the frame (header included) and
   * their count, so the reader of a checkpoint can find them in the file instead of encoding
   * the value again.
   */
  put(key: Uint8Array, json: string): ValueSpan {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair: 4 bytes for 2 units).
    this.#reserve(1 + 2 + key.byteLength + 4 + json.length * 3);
    const at = this.#writeKey(OP_PUT, key);
    const valueBytes = this.#buffer.write(json, at + 4, 'utf8');
    this.#buffer.writeUInt32LE(valueBytes, at);
    this.#length = at + 4 + valueBytes;
    // Checked after the fact: the caller's write then throws and is cut back to its mark.
    if (this.payloadBytes > FRAME_PAYLOAD_BYTES_MAX) throw new Error('a write-ahead log group passed its size limit (1 GiB)');
    return { offset: at + 4, bytes: valueBytes };
  }

  /**
   * Encodes a put whose value's JSON is `head` + the bytes at `inner` (a span this builder's put
   * answered since its last clear, not cut back) + `tail`: those bytes are not written again.
   * The reader gets the value back whole (decodeFrame); a checkpoint assembles its JSON.
   */
  putSpliced(key: Uint8Array, head: string, inner: ValueSpan, tail: string): void {
    if (inner.offset < FRAME_HEADER_BYTES || inner.offset + inner.bytes > this.#length) {
      throw new Error(`a spliced put refers to bytes ${inner.offset} (+${inner.bytes}) outside the frame's ${this.#length}`);
    }
    this.#reserve(1 + 2 + key.byteLength + 4 + head.length * 3 + 4 + tail.length * 3 + 8);
    const buffer = this.#buffer;
    let at = this.#writeKey(OP_PUT_SPLICED, key);
    const headBytes = buffer.write(head, at + 4, 'utf8');
    buffer.writeUInt32LE(headBytes, at);
    at += 4 + headBytes;
    const tailBytes = buffer.write(tail, at + 4, 'utf8');
    buffer.writeUInt32LE(tailBytes, at);
    at += 4 + tailBytes;
    // Relative to the payload, as decodeFrame reads it.
    buffer.writeUInt32LE(inner.offset - FRAME_HEADER_BYTES, at);
    buffer.writeUInt32LE(inner.bytes, at + 4);
    this.#length = at + 8;
    if (this.payloadBytes > FRAME_PAYLOAD_BYTES_MAX) throw new Error('a write-ahead log group passed its size limit (1 GiB)');
  }

  remove(key: Uint8Array): void {
    this.#reserve(1 + 2 + key.byteLength);
    this.#length = this.#writeKey(OP_REMOVE, key);
  }

  /** The whole frame, header filled in; a view of the builder's buffer, valid until the next clear. */
  seal(): Buffer {
    const buffer = this.#buffer;
    const payload = buffer.subarray(FRAME_HEADER_BYTES, this.#length);
    buffer.writeUInt32LE(payload.byteLength, 0);
    buffer.writeUInt32LE(crc32(payload), 4);
    return buffer.subarray(0, this.#length);
  }

  /** Empties the builder for reuse; a buffer grown large is let go. */
  clear(): void {
    this.#length = FRAME_HEADER_BYTES;
    if (this.#buffer.byteLength > FRAME_BUFFER_KEEP_BYTES) this.#buffer = Buffer.allocUnsafe(FRAME_BUFFER_INITIAL_BYTES);
  }

  #writeKey(op: number, key: Uint8Array): number {
    const buffer = this.#buffer;
    let at = this.#length;
    buffer[at] = op;
    buffer.writeUInt16LE(key.byteLength, at + 1);
    buffer.set(key, at + 3);
    at += 3 + key.byteLength;
    return at;
  }

  #reserve(bytes: number): void {
    const needed = this.#length + bytes;
    if (needed <= this.#buffer.byteLength) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.#buffer.byteLength * 2));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding

export class CorruptLogError extends DamagedFileError {}

/** The whole frames at the start of `data`, and where the first bad or partial one begins. */
export interface ScannedSegment {
  readonly frames: readonly Uint8Array[];
  /** Bytes of whole frames; less than the file's size when the tail is torn or prepared. */
  readonly validBytes: number;
  /**
   * What follows the whole frames is not only zeros: a frame was cut short or is corrupt. Zeros
   * are where no frame was written yet (a prepared segment), the log's clean end.
   */
  readonly torn: boolean;
}

export function scanFrames(data: Uint8Array): ScannedSegment {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const frames: Uint8Array[] = [];
  let at = 0;
  while (at + FRAME_HEADER_BYTES <= view.byteLength) {
    const length = view.readUInt32LE(at);
    const end = at + FRAME_HEADER_BYTES + length;
    // A zero length never comes from a sealed frame (an empty group writes nothing): zeroes past the end of data.
    if (length === 0 || length > FRAME_PAYLOAD_BYTES_MAX || end > view.byteLength) break;
    const payload = view.subarray(at + FRAME_HEADER_BYTES, end);
    if (crc32(payload) !== view.readUInt32LE(at + 4)) break;
    frames.push(payload);
    at = end;
  }
  return { frames, validBytes: at, torn: !isZeros(view, at) };
}

/** Every byte of data from `from` on is zero. */
function isZeros(data: Buffer, from: number): boolean {
  const zeros = Buffer.alloc(Math.min(64 * 1024, data.byteLength - from));
  for (let at = from; at < data.byteLength; at += zeros.byteLength) {
    const end = Math.min(at + zeros.byteLength, data.byteLength);
    if (data.compare(zeros, 0, end - at, at, end) !== 0) return false;
  }
  return true;
}

/** The ops of one frame's payload (crc already checked), in the order they were made. */
export function decodeFrame(payload: Uint8Array): LoggedOp[] {
  const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const ops: LoggedOp[] = [];
  let at = 0;
  while (at < view.byteLength) {
    const op = view[at]!;
    if (at + 3 > view.byteLength) throw corrupt('an op header runs past the end of its frame');
    const keyBytes = view.readUInt16LE(at + 1);
    const keyEnd = at + 3 + keyBytes;
    if (keyEnd > view.byteLength) throw corrupt('a key runs past the end of its frame');
    // A copy: the key outlives the file's buffer (the memtable keeps it).
    const key = new Uint8Array(view.subarray(at + 3, keyEnd));
    if (op === OP_REMOVE) {
      ops.push({ key, json: undefined, valueOffset: 0, valueBytes: 0, head: undefined, tail: undefined });
      at = keyEnd;
    } else if (op === OP_PUT) {
      if (keyEnd + 4 > view.byteLength) throw corrupt('a value length runs past the end of its frame');
      const valueBytes = view.readUInt32LE(keyEnd);
      const valueEnd = keyEnd + 4 + valueBytes;
      if (valueEnd > view.byteLength) throw corrupt('a value runs past the end of its frame');
      ops.push({ key, json: view.toString('utf8', keyEnd + 4, valueEnd), valueOffset: keyEnd + 4, valueBytes, head: undefined, tail: undefined });
      at = valueEnd;
    } else if (op === OP_PUT_SPLICED) {
      const head = readLengthPrefixed(view, keyEnd);
      const tail = readLengthPrefixed(view, head.end);
      if (tail.end + 8 > view.byteLength) throw corrupt('a spliced value runs past the end of its frame');
      const innerOffset = view.readUInt32LE(tail.end);
      const innerBytes = view.readUInt32LE(tail.end + 4);
      // Only an earlier op's bytes: the value it embeds was put before it, in this frame.
      if (innerOffset + innerBytes > at) throw corrupt('a spliced value refers to bytes after it');
      const json = head.text + view.toString('utf8', innerOffset, innerOffset + innerBytes) + tail.text;
      ops.push({ key, json, valueOffset: innerOffset, valueBytes: innerBytes, head: head.text, tail: tail.text });
      at = tail.end + 8;
    } else {
      throw corrupt(`unknown op ${op}`);
    }
  }
  return ops;
}

/** A u32 LE byte count at `at` and that many bytes of UTF-8 text after it. */
function readLengthPrefixed(view: Buffer, at: number): { text: string; end: number } {
  if (at + 4 > view.byteLength) throw corrupt('a value length runs past the end of its frame');
  const end = at + 4 + view.readUInt32LE(at);
  if (end > view.byteLength) throw corrupt('a value runs past the end of its frame');
  return { text: view.toString('utf8', at + 4, end), end };
}

function corrupt(detail: string): CorruptLogError {
  return new CorruptLogError(`the write-ahead log is corrupt (a frame with a valid checksum does not decode: ${detail})`);
}

// ---------------------------------------------------------------------------------------------
// Files

/**
 * An open segment being written. The seam tests use to count syncs. Frames go at positions the
 * store chooses (logged.ts), so several may be in flight at once, each at its own place.
 */
export interface LogFile {
  /**
   * Writes bytes at `position`. Resolves once the OS has them all; for a file opened durable,
   * once they are on the disk (as after an fdatasync).
   */
  write(data: Uint8Array, position: number): Promise<void>;
  /** Bytes written ahead as zeros (prepare): writes within them change no file metadata. 0: none. */
  readonly preparedBytes: number;
  close(): Promise<void>;
}

export interface LogIo {
  /**
   * Creates a new, empty segment (refused if the name exists: a segment is never written over).
   * `durable`: every write is on the disk when it resolves.
   */
  create(path: string, durable: boolean): Promise<LogFile>;
  /**
   * Creates a segment of `bytes` zeros, on the disk when it resolves, to be written from its
   * first byte on (see PREPARED_SEGMENT).
   */
  prepare(path: string, bytes: number, durable: boolean): Promise<LogFile>;
}

/**
 * O_DSYNC where the platform has it: a write returns once its data (and the file size) is on the
 * disk, so a group costs one syscall and one trip through libuv's thread pool instead of a write
 * and an fdatasync, each a trip of its own (each trip wakes a pool thread and the event loop;
 * measured on a busy 2-core VM with 8-write groups: 126-137 against 150-165 us of CPU per write in
 * 3 of 4 alternating pairs). Elsewhere (Windows) the append is followed by an fdatasync.
 */
const O_DSYNC: number | undefined = fsConstants.O_DSYNC;

/**
 * PREPARED_SEGMENT. A sync after an append that grows the file must also commit the new size and
 * blocks (on ext4 a journal commit: ~4 device writes per sync); a sync after overwriting bytes the
 * file already has on the disk is only those bytes (~2). Measured on the bench VM, 9 KB O_DSYNC
 * writes, 3 alternating pairs: appending p50 0.30-0.53 ms, 128-228 us of CPU and 3.7-4.0 device
 * writes per sync; overwriting zeros already synced p50 0.16-0.30 ms, 53-96 us and 2.1. So the
 * store writes segments of zeros ahead, in the background (logged.ts), and appends into them.
 * Recovery reads zeros after the last frame as the end of the log, not as a torn tail.
 */
const ZERO_CHUNK_BYTES = 1 << 20;

export const NODE_LOG_IO: LogIo = {
  async create(path, durable) {
    const dsync = durable && O_DSYNC !== undefined ? O_DSYNC : 0;
    // Not O_APPEND: frames in flight together each go at their own position (logged.ts).
    const handle = await open(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | dsync, 0o644);
    return new NodeLogFile(handle, durable && dsync === 0, 0);
  },
  async prepare(path, bytes, durable) {
    const zeros = Buffer.alloc(Math.min(ZERO_CHUNK_BYTES, bytes));
    const filler = await open(path, 'w', 0o644);
    try {
      for (let at = 0; at < bytes; at += zeros.byteLength) {
        const length = Math.min(zeros.byteLength, bytes - at);
        let written = 0;
        while (written < length) {
          const { bytesWritten } = await filler.write(zeros, 0, length - written, at + written);
          if (bytesWritten <= 0) throw new Error('a write-ahead log segment could not be prepared (no bytes taken)');
          written += bytesWritten;
        }
      }
      await filler.datasync();
    } finally {
      await filler.close();
    }
    const dsync = durable && O_DSYNC !== undefined ? O_DSYNC : 0;
    const handle = await open(path, fsConstants.O_WRONLY | dsync);
    return new NodeLogFile(handle, durable && dsync === 0, bytes);
  },
};

class NodeLogFile implements LogFile {
  readonly #handle: FileHandle;
  /** Durable without O_DSYNC: each write ends with an fdatasync. */
  readonly #syncAfterWrite: boolean;
  readonly preparedBytes: number;

  constructor(handle: FileHandle, syncAfterWrite: boolean, preparedBytes: number) {
    this.#handle = handle;
    this.#syncAfterWrite = syncAfterWrite;
    this.preparedBytes = preparedBytes;
  }

  write(data: Uint8Array, position: number): Promise<void> {
    // fs.write with a callback, not the FileHandle's promise: one request object per frame
    // instead of a promise chain (a frame is written on every group commit).
    const fd = this.#handle.fd;
    return new Promise<void>((resolve, reject) => {
      const step = (written: number): void => {
        fsWrite(fd, data, written, data.byteLength - written, position + written, (error, bytesWritten) => {
          if (error !== null) reject(error);
          else if (bytesWritten <= 0) reject(new Error('the write-ahead log could not be written (no bytes taken)'));
          // A regular file takes a whole write at once; this is for the rare short write.
          else if (written + bytesWritten < data.byteLength) step(written + bytesWritten);
          else if (this.#syncAfterWrite) this.#handle.datasync().then(resolve, reject);
          else resolve();
        });
      };
      step(0);
    });
  }

  close(): Promise<void> {
    return this.#handle.close();
  }
}

export function segmentPath(directory: string, segment: number): string {
  return join(directory, `wal-${String(segment).padStart(12, '0')}.log`);
}

/** The segment numbers present in the directory, ascending. */
export async function listSegments(directory: string): Promise<number[]> {
  const segments: number[] = [];
  for (const name of await readdir(directory)) {
    const match = SEGMENT_PATTERN.exec(name);
    if (match !== null) segments.push(Number(match[1]));
  }
  return segments.sort((a, b) => a - b);
}

/**
 * The last segment a checkpoint covered (0: none yet), from `wal-checkpoint`. The mark carries a
 * crc32 of its number: it is written aside and renamed over, so whole or absent, and a number
 * changed on the disk (one flipped bit turns segment 2 into 3) must not be read as another
 * number, since every segment up to the mark is skipped at replay and then deleted. A mark
 * without the crc (written before it existed) is read as it is.
 */
export async function readCheckpointMark(directory: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(join(directory, CHECKPOINT_FILE), 'utf8');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return 0;
    throw error;
  }
  const segment = markedSegment(text);
  if (segment === undefined) throw new CorruptLogError(checkpointMarkDamage(directory, text));
  return segment;
}

/** The refusal of a damaged mark: the file, its first bytes, and the way out. */
function checkpointMarkDamage(directory: string, text: string): string {
  return `the write-ahead log's checkpoint mark ${join(directory, CHECKPOINT_FILE)} is damaged (${JSON.stringify(text.slice(0, 60))}); nothing on the disk was changed. Run dynatwin recover --data-dir ${directory}: it rebuilds the mark from the log's segments and keeps the damaged one aside`;
}

/** The JSON object a small file of ours holds, or undefined when its text is not one (damage). */
function jsonObjectOf(text: string): object | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
}

/** The segment a mark's text records, or undefined when the text is not a whole, intact mark. */
function markedSegment(text: string): number | undefined {
  const parsed = jsonObjectOf(text);
  if (parsed === undefined) return undefined;
  const keys = Object.keys(parsed).join(',');
  const segment: unknown = Reflect.get(parsed, 'segment');
  if (typeof segment !== 'number' || !Number.isSafeInteger(segment) || segment < 0) return undefined;
  if (keys === 'segment') return segment;
  if (keys !== 'segment,crc32' || Reflect.get(parsed, 'crc32') !== markCrc(segment)) return undefined;
  return segment;
}

function markCrc(segment: number): number {
  return crc32(Buffer.from(`wal-checkpoint ${segment}`, 'utf8'));
}

/** Records that LMDB holds every write of the segments up to `segment`: written aside, synced, renamed over. */
export async function writeCheckpointMark(directory: string, segment: number): Promise<void> {
  const temporary = join(directory, CHECKPOINT_TEMPORARY_FILE);
  const handle = await open(temporary, 'w', 0o644);
  try {
    await handle.writeFile(JSON.stringify({ segment, crc32: markCrc(segment) }) + '\n', 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(temporary, join(directory, CHECKPOINT_FILE));
  await syncDirectory(directory);
}

/**
 * Cuts a segment back to its whole frames and makes the cut durable. Its prepared record goes
 * first (and that is synced): the file is then shorter than it was prepared to, and a record left
 * saying otherwise would read as damage at the next start-up.
 */
export async function truncateSegment(directory: string, segment: number, length: number): Promise<void> {
  await clearPreparedRecord(directory, segment);
  const handle = await open(segmentPath(directory, segment), 'r+');
  try {
    await handle.truncate(length);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Removes a segment, its prepared record first (a record left behind would speak for a later file of that name). */
export async function removeSegment(directory: string, segment: number): Promise<void> {
  await clearPreparedRecord(directory, segment);
  try {
    await unlink(segmentPath(directory, segment));
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
  }
}

/**
 * PREPARED RECORDS. A crash never shortens a file, and a prepared segment's writes all fall
 * inside its prepared bytes or, appended, past them, so a prepared segment is never shorter than
 * it was prepared to unless something cut it: a copy cut short, a file system that lost the
 * file's end. A plain segment (created empty and appended to) can legitimately end mid-frame,
 * and a cut one looks the same, so the size a segment was prepared to is recorded beside it,
 * `wal-<n>.prepared` (its number, the bytes, a crc32 of both), written and synced (and the
 * directory synced) before the segment is used. surveyLog reads a segment shorter than its
 * record as damage. No record, or one that does not read whole (a crash while it was written, a
 * flipped bit, a data directory from before records existed): the segment is judged as a plain
 * one, never refused for that. Whatever shortens or removes a segment removes its record first,
 * durably (truncateSegment, removeSegment), and a segment is never created while a record of
 * its number remains (clearPreparedRecord before create and prepare).
 */
export function preparedRecordPath(directory: string, segment: number): string {
  return join(directory, `wal-${String(segment).padStart(12, '0')}${PREPARED_RECORD_SUFFIX}`);
}

/** The size a record's text says its segment was prepared to, or undefined when it is not a whole, intact record of that segment. */
function recordedBytes(text: string, segment: number): number | undefined {
  const parsed = jsonObjectOf(text);
  if (parsed === undefined) return undefined;
  const bytes: unknown = Reflect.get(parsed, 'bytes');
  if (Reflect.get(parsed, 'segment') !== segment || typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes <= 0) return undefined;
  return Reflect.get(parsed, 'crc32') === preparedRecordCrc(segment, bytes) ? bytes : undefined;
}

function preparedRecordCrc(segment: number, bytes: number): number {
  return crc32(Buffer.from(`wal-prepared ${segment} ${bytes}`, 'utf8'));
}

/** Records that `segment` was prepared to `bytes` (its zeros already synced); the caller syncs the directory. */
export async function writePreparedRecord(directory: string, segment: number, bytes: number): Promise<void> {
  const handle = await open(preparedRecordPath(directory, segment), 'w', 0o644);
  try {
    await handle.writeFile(JSON.stringify({ segment, bytes, crc32: preparedRecordCrc(segment, bytes) }) + '\n', 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** The size `segment` was prepared to, when its record reads whole; undefined otherwise (never an error: see PREPARED RECORDS). */
export async function readPreparedRecord(directory: string, segment: number): Promise<number | undefined> {
  try {
    const handle = await open(preparedRecordPath(directory, segment), 'r');
    try {
      // A record is some 60 bytes; a file far larger is not one.
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(PREPARED_RECORD_BYTES_MAX), 0, PREPARED_RECORD_BYTES_MAX, 0);
      return recordedBytes(buffer.toString('utf8', 0, bytesRead), segment);
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Removes `segment`'s prepared record, if any, durably (the directory synced only when there was one). */
export async function clearPreparedRecord(directory: string, segment: number): Promise<void> {
  try {
    await unlink(preparedRecordPath(directory, segment));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  await syncDirectory(directory);
}

/** Makes created, renamed and removed names in `directory` durable (fsync of the directory). */
export async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch (error) {
    // Some platforms cannot open or sync a directory (Windows: EISDIR/EPERM); there is nothing more to do.
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EACCES'].includes(codeOf(error) ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

export async function readSegment(directory: string, segment: number): Promise<Buffer> {
  return readFile(segmentPath(directory, segment));
}

// ---------------------------------------------------------------------------------------------
// Surveying the log at start-up: a torn tail, or damage

/** Intact frames found one after another past a bad point: a byte range of one segment file. */
export interface FrameRun {
  readonly segment: number;
  /** The first byte of its first frame, and the byte after its last. */
  readonly start: number;
  readonly end: number;
  /** Each frame's payload (a view of the segment's bytes), in order. */
  readonly frames: readonly Uint8Array[];
}

/** A FrameRun while the search extends it. */
interface GrowingRun {
  readonly segment: number;
  readonly start: number;
  end: number;
  readonly frames: Uint8Array[];
}

/** Where the log stops before the end of its files: a segment whose whole frames are followed by anything but zeros. */
export interface LogBreak {
  readonly segment: number;
  readonly path: string;
  /** Where the first bad frame begins: the end of the intact prefix. */
  readonly offset: number;
  /** The segment file's size: a cut at `offset` drops the rest. */
  readonly fileBytes: number;
  /** Intact frames found past the bad point, in its segment and in the later ones, in order. */
  readonly runs: readonly FrameRun[];
  /** The segments after the break's one. */
  readonly laterSegments: readonly number[];
  /** Those of them holding anything but zeros (a frame, or bytes of none): none can, after a crash. */
  readonly laterSegmentsWithBytes: readonly number[];
  /** The search for intact frames reached its work bound (FRAME_SEARCH_WORK_PER_BYTE) before the end: more may follow. */
  readonly incomplete: boolean;
  /**
   * The size the break's segment was prepared to, when its file is shorter (PREPARED RECORDS):
   * its end was cut off, damage whatever follows. Undefined otherwise.
   */
  readonly preparedBytes: number | undefined;
}

/** A segment replayed at start-up: its bytes and the whole frames before any break. */
export interface SurveyedSegment {
  readonly segment: number;
  readonly data: Buffer;
  readonly frames: readonly Uint8Array[];
  readonly validBytes: number;
}

/** What is on the disk, read without changing anything (surveyLog). */
export interface LogSurvey {
  readonly mark: number;
  /** Segments the checkpoint mark covers (a removal a crash interrupted): LMDB has their writes. */
  readonly covered: readonly number[];
  /** The segments after the mark, up to and including the break's, in order. */
  readonly replayed: readonly SurveyedSegment[];
  readonly break: LogBreak | undefined;
  /** The highest segment number present, or the mark's (0: none). */
  readonly lastSegment: number;
}

/**
 * Reads the log after the checkpoint mark and finds where its intact prefix ends, changing
 * nothing on the disk. Past a break it searches the rest of that segment and every later one
 * for intact frames (findFrames), which tells a torn tail from damage (isTornTail).
 */
export async function surveyLog(directory: string): Promise<LogSurvey> {
  const mark = await readCheckpointMark(directory);
  let segments: number[];
  try {
    segments = await listSegments(directory);
  } catch (error) {
    // A data directory not made yet holds no log.
    if (codeOf(error) === 'ENOENT') return { mark, covered: [], replayed: [], break: undefined, lastSegment: mark };
    throw error;
  }
  const pending = segments.filter((segment) => segment > mark);
  const replayed: SurveyedSegment[] = [];
  let found: LogBreak | undefined;
  for (let at = 0; at < pending.length && found === undefined; at++) {
    const segment = pending[at]!;
    const data = await readSegment(directory, segment);
    const { frames, validBytes, torn } = scanFrames(data);
    replayed.push({ segment, data, frames, validBytes });
    const prepared = await readPreparedRecord(directory, segment);
    const cutShort = prepared !== undefined && data.byteLength < prepared;
    if (torn || cutShort) found = await surveyBreak(directory, segment, data, validBytes, pending.slice(at + 1), cutShort ? prepared : undefined);
  }
  return { mark, covered: segments.filter((segment) => segment <= mark), replayed, break: found, lastSegment: Math.max(mark, ...segments) };
}

async function surveyBreak(directory: string, segment: number, data: Buffer, offset: number, laterSegments: readonly number[], preparedBytes: number | undefined): Promise<LogBreak> {
  const budget = { left: FRAME_SEARCH_WORK_BASE };
  const runs: GrowingRun[] = [];
  // Past the bad frame's first byte: its length field is not to be trusted.
  let complete = findFrames(data, offset + 1, segment, budget, runs);
  const laterSegmentsWithBytes: number[] = [];
  for (const later of laterSegments) {
    const laterData = await readSegment(directory, later);
    if (!isZeros(laterData, 0)) laterSegmentsWithBytes.push(later);
    if (complete) complete = findFrames(laterData, 0, later, budget, runs);
  }
  return { segment, path: segmentPath(directory, segment), offset, fileBytes: data.byteLength, runs, laterSegments, laterSegmentsWithBytes, incomplete: !complete, preparedBytes };
}

/**
 * A torn tail, which start-up cuts: what a crash can leave. Frames are written only into the
 * last segment that gets any (the frames in flight are drained before the log moves on), at
 * most `inFlightFramesMax` at once, each at the position fixed when it was sent; everything sent
 * before them is on the disk. So past the first bad frame (one in flight, cut short or never
 * written) there can be at most inFlightFramesMax - 1 intact frames (the others in flight), in
 * that segment only, and later segments hold only zeros (prepared, unused) or nothing. Anything
 * more is damage, refused.
 */
export function isTornTail(found: LogBreak, inFlightFramesMax: number): boolean {
  if (found.preparedBytes !== undefined || found.incomplete || found.laterSegmentsWithBytes.length > 0) return false;
  // Every run is in the break's segment: a later one with a frame holds bytes.
  const intact = found.runs.reduce((count, run) => count + run.frames.length, 0);
  return intact <= inFlightFramesMax - 1;
}

/** Intact frames and their bytes past a break, in its own segment and in later ones. */
function strandedCounts(found: LogBreak): { sameFrames: number; laterFrames: number; laterSegments: number; bytes: number } {
  let sameFrames = 0;
  let laterFrames = 0;
  let bytes = 0;
  const later = new Set<number>();
  for (const run of found.runs) {
    bytes += run.end - run.start;
    if (run.segment === found.segment) {
      sameFrames += run.frames.length;
    } else {
      laterFrames += run.frames.length;
      later.add(run.segment);
    }
  }
  return { sameFrames, laterFrames, laterSegments: later.size, bytes };
}

/** A damaged log: the one line start-up refuses with. */
export class LogDamagedError extends CorruptLogError {}

export function logDamagedError(found: LogBreak): LogDamagedError {
  const { sameFrames, laterFrames, laterSegments, bytes } = strandedCounts(found);
  const atLeast = found.incomplete ? 'at least ' : '';
  const later = laterSegments === 0 ? 'none in later segments' : `${laterFrames} in ${laterSegments} later segment${laterSegments === 1 ? '' : 's'}`;
  const frameless = found.laterSegmentsWithBytes.length - laterSegments;
  const bytesNote = frameless === 0 ? '' : `, and ${frameless} later segment${frameless === 1 ? ' holds' : 's hold'} bytes other than zeros but no frame`;
  if (found.preparedBytes !== undefined) {
    return new LogDamagedError(
      `the write-ahead log is damaged: ${found.path} is ${found.fileBytes} bytes, cut short of the ${found.preparedBytes} bytes it was prepared to (no crash shortens a prepared segment); ` +
        `its whole frames end at byte ${found.offset}, followed by ${atLeast}${sameFrames + laterFrames} intact frame${sameFrames + laterFrames === 1 ? '' : 's'} (${bytes} bytes: ${sameFrames} in that file, ${later})${bytesNote}; nothing on the disk was changed`,
    );
  }
  return new LogDamagedError(
    `the write-ahead log is damaged: ${found.path} has a bad frame at byte ${found.offset}, followed by ${atLeast}${sameFrames + laterFrames} intact frame${sameFrames + laterFrames === 1 ? '' : 's'} ` +
      `(${bytes} bytes: ${sameFrames} in that file, ${later})${bytesNote}, more than a crash mid-write can leave; nothing on the disk was changed`,
  );
}

/**
 * Work a search for intact frames past a break may do (op headers walked, bytes checksummed):
 * this much per byte searched, plus a fixed allowance. Real frames and ordinary garbage cost
 * about one unit per byte; the bound is for bytes crafted to look like frames, which could
 * otherwise cost a checksum per byte. A search that reaches it says so, and counts as damage.
 */
const FRAME_SEARCH_WORK_PER_BYTE = 16;
const FRAME_SEARCH_WORK_BASE = 64 * 1024 * 1024;
/** Zeros compared at once while skipping a run of them (never written to). */
const ZERO_BLOCK = Buffer.alloc(4096);

/**
 * Finds the intact frames in data from `from` on, adding them to runs: at each byte a length
 * within bounds, ops that fit the payload exactly (cheap: most garbage fails its first op), and
 * a matching crc; a frame found is skipped whole. Answers false if the work bound ran out.
 */
function findFrames(data: Buffer, from: number, segment: number, budget: { left: number }, runs: GrowingRun[]): boolean {
  const size = data.byteLength;
  budget.left += FRAME_SEARCH_WORK_PER_BYTE * Math.max(0, size - from);
  let at = from;
  // The hot loop runs once per byte of garbage: plain byte reads, and cheap rejections first.
  while (at + FRAME_HEADER_BYTES <= size) {
    if (budget.left <= 0) return false;
    const length = (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) >>> 0;
    if (length === 0) {
      // A run of zeros holds no frame: to the first byte that could end a nonzero length.
      at = Math.max(at + 1, nextNonZero(data, at) - 3);
      continue;
    }
    budget.left--;
    const payloadStart = at + FRAME_HEADER_BYTES;
    const end = payloadStart + length;
    const op = data[payloadStart];
    if (end > size || length > FRAME_PAYLOAD_BYTES_MAX || (op !== OP_PUT && op !== OP_REMOVE && op !== OP_PUT_SPLICED) || !opsFit(data, payloadStart, end, budget)) {
      at++;
      continue;
    }
    budget.left -= length;
    const payload = data.subarray(payloadStart, end);
    if (crc32(payload) !== data.readUInt32LE(at + 4)) {
      at++;
      continue;
    }
    const last = runs.at(-1);
    if (last !== undefined && last.segment === segment && last.end === at) {
      last.end = end;
      last.frames.push(payload);
    } else {
      runs.push({ segment, start: at, end, frames: [payload] });
    }
    at = end;
  }
  return true;
}

/** The intact frames of data from `from` on, in runs (findFrames, within its work bound); for tests. */
export function findIntactFrames(data: Buffer, from: number): FrameRun[] {
  const runs: GrowingRun[] = [];
  findFrames(data, from, 0, { left: FRAME_SEARCH_WORK_BASE }, runs);
  return runs;
}

/** The first nonzero byte of data at or after `from` (data's length if none). */
function nextNonZero(data: Buffer, from: number): number {
  let at = from;
  while (at < data.byteLength) {
    const end = Math.min(at + ZERO_BLOCK.byteLength, data.byteLength);
    if (data.compare(ZERO_BLOCK, 0, end - at, at, end) !== 0) {
      while (data[at] === 0) at++;
      return at;
    }
    at = end;
  }
  return at;
}

/**
 * Whether data[start, end) is a sequence of ops as FrameBuilder writes them (a nonempty key; a
 * put's value a JSON object or array), ending exactly at `end`. Each op walked costs one unit.
 */
function opsFit(data: Buffer, start: number, end: number, budget: { left: number }): boolean {
  let at = start;
  while (at < end) {
    budget.left--;
    if (at + 3 > end) return false;
    const op = data[at]!;
    const keyBytes = data.readUInt16LE(at + 1);
    const keyEnd = at + 3 + keyBytes;
    if (keyBytes === 0 || keyEnd > end) return false;
    if (op === OP_REMOVE) {
      at = keyEnd;
    } else if (op === OP_PUT) {
      if (keyEnd + 4 > end) return false;
      const valueEnd = keyEnd + 4 + data.readUInt32LE(keyEnd);
      const first = data[keyEnd + 4];
      if (valueEnd > end || valueEnd < keyEnd + 6 || (first !== 0x7b && first !== 0x5b)) return false;
      at = valueEnd;
    } else if (op === OP_PUT_SPLICED) {
      if (keyEnd + 4 > end) return false;
      const tailAt = keyEnd + 4 + data.readUInt32LE(keyEnd);
      if (tailAt + 4 > end) return false;
      const next = tailAt + 4 + data.readUInt32LE(tailAt) + 8;
      if (next > end) return false;
      at = next;
    } else {
      return false;
    }
  }
  return at === end;
}
