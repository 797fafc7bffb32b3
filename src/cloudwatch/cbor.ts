/**
 * A small CBOR codec (RFC 8949) for the Smithy RPC v2 CBOR protocol: what CloudWatch's clients
 * send and read. Decoding is defensive — it runs on request bodies: every length is checked against
 * the bytes left, nesting is bounded, map keys must be text, and anything malformed is a CborError
 * (the server answers 400), never another exception, a hang or an unbounded allocation.
 *
 * Values: unsigned and negative integers (as numbers; beyond 2^53 a CborError), byte strings
 * (Uint8Array), text (UTF-8, checked), arrays, maps (plain objects with text keys), tag 1 (epoch
 * seconds) as Date, other tags as their content, false / true / null / undefined, half, single and
 * double floats; definite and indefinite lengths.
 */

export class CborError extends Error {}

/** Deeper than any request of the protocol nests (a GetMetricData query is ~6 levels). */
export const CBOR_DEPTH_MAX = 64;

const MAJOR_UNSIGNED = 0;
const MAJOR_NEGATIVE = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
const MAJOR_TAG = 6;
const MAJOR_SIMPLE = 7;
const INDEFINITE = 31;
const BREAK = 0xff;
const TAG_EPOCH_SECONDS = 1;

export type CborValue = number | string | boolean | null | undefined | Uint8Array | Date | CborValue[] | { [key: string]: CborValue };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeCbor(bytes: Uint8Array): CborValue {
  const reader = new Reader(bytes);
  const value = reader.value(0);
  if (reader.offset !== bytes.length) throw new CborError(`${bytes.length - reader.offset} bytes after the CBOR value`);
  return value;
}

class Reader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  offset = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  #need(count: number): void {
    if (count > this.#bytes.length - this.offset) throw new CborError('CBOR value cut short');
  }

  #byte(): number {
    this.#need(1);
    return this.#bytes[this.offset++]!;
  }

  /** The argument of a head whose additional information is `info` (not 31). */
  #argument(info: number): number {
    if (info < 24) return info;
    switch (info) {
      case 24:
        return this.#byte();
      case 25:
        this.#need(2);
        this.offset += 2;
        return this.#view.getUint16(this.offset - 2);
      case 26:
        this.#need(4);
        this.offset += 4;
        return this.#view.getUint32(this.offset - 4);
      case 27: {
        this.#need(8);
        const high = this.#view.getUint32(this.offset);
        const low = this.#view.getUint32(this.offset + 4);
        this.offset += 8;
        if (high >= 0x200000) throw new CborError('CBOR integer beyond 2^53');
        return high * 0x100000000 + low;
      }
      default:
        throw new CborError(`reserved CBOR additional information ${info}`);
    }
  }

  value(depth: number): CborValue {
    if (depth > CBOR_DEPTH_MAX) throw new CborError('CBOR nested too deeply');
    const head = this.#byte();
    const major = head >> 5;
    const info = head & 0x1f;
    switch (major) {
      case MAJOR_UNSIGNED:
        return this.#argument(info);
      case MAJOR_NEGATIVE:
        return -1 - this.#argument(info);
      case MAJOR_BYTES:
      case MAJOR_TEXT:
        return this.#string(major, info);
      case MAJOR_ARRAY:
        return this.#array(info, depth);
      case MAJOR_MAP:
        return this.#map(info, depth);
      case MAJOR_TAG: {
        const tag = this.#argument(info);
        const content = this.value(depth + 1);
        if (tag === TAG_EPOCH_SECONDS) {
          if (typeof content !== 'number' || !Number.isFinite(content)) throw new CborError('CBOR tag 1 needs a number of epoch seconds');
          return new Date(Math.round(content * 1000));
        }
        return content;
      }
      default:
        return this.#simple(info);
    }
  }

  #string(major: number, info: number): Uint8Array | string {
    let bytes: Uint8Array;
    if (info === INDEFINITE) {
      const chunks: Uint8Array[] = [];
      for (;;) {
        this.#need(1);
        if (this.#bytes[this.offset] === BREAK) {
          this.offset++;
          break;
        }
        const chunkHead = this.#byte();
        if (chunkHead >> 5 !== major || (chunkHead & 0x1f) === INDEFINITE) throw new CborError('bad chunk in an indefinite CBOR string');
        chunks.push(this.#definiteBytes(this.#argument(chunkHead & 0x1f)));
      }
      bytes = new Uint8Array(Buffer.concat(chunks));
    } else {
      bytes = this.#definiteBytes(this.#argument(info));
    }
    if (major === MAJOR_BYTES) return bytes;
    try {
      return utf8.decode(bytes);
    } catch {
      throw new CborError('CBOR text is not UTF-8');
    }
  }

  #definiteBytes(length: number): Uint8Array {
    this.#need(length);
    this.offset += length;
    // A copy, and a plain Uint8Array even when the input is a Buffer.
    return new Uint8Array(this.#bytes.subarray(this.offset - length, this.offset));
  }

  #array(info: number, depth: number): CborValue[] {
    const values: CborValue[] = [];
    if (info === INDEFINITE) {
      while (!this.#atBreak()) values.push(this.value(depth + 1));
      return values;
    }
    const length = this.#argument(info);
    // Every element takes at least one byte: a length beyond the bytes left is a lie, refused before allocating.
    this.#need(length);
    for (let index = 0; index < length; index++) values.push(this.value(depth + 1));
    return values;
  }

  #map(info: number, depth: number): { [key: string]: CborValue } {
    const map: { [key: string]: CborValue } = {};
    const entry = (): void => {
      const key = this.value(depth + 1);
      if (typeof key !== 'string') throw new CborError('CBOR map keys must be text');
      // An own property whatever the key ("__proto__" included): never a prototype change.
      Object.defineProperty(map, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
    };
    if (info === INDEFINITE) {
      while (!this.#atBreak()) entry();
    } else {
      const length = this.#argument(info);
      this.#need(length * 2);
      for (let index = 0; index < length; index++) entry();
    }
    return map;
  }

  #atBreak(): boolean {
    this.#need(1);
    if (this.#bytes[this.offset] !== BREAK) return false;
    this.offset++;
    return true;
  }

  #simple(info: number): CborValue {
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 23:
        return undefined;
      case 25: {
        this.#need(2);
        const half = this.#view.getUint16(this.offset);
        this.offset += 2;
        return halfToNumber(half);
      }
      case 26:
        this.#need(4);
        this.offset += 4;
        return this.#view.getFloat32(this.offset - 4);
      case 27:
        this.#need(8);
        this.offset += 8;
        return this.#view.getFloat64(this.offset - 8);
      default:
        throw new CborError(info === INDEFINITE ? 'unexpected CBOR break' : `unsupported CBOR simple value ${info}`);
    }
  }
}

function halfToNumber(half: number): number {
  const sign = half & 0x8000 ? -1 : 1;
  const exponent = (half >> 10) & 0x1f;
  const fraction = half & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Encodes a value: definite lengths, shortest integer heads, doubles for non-integers, Dates as tag 1. */
export function encodeCbor(value: CborValue): Buffer {
  const writer = new Writer();
  writer.value(value, 0);
  return writer.finish();
}

class Writer {
  #buffer = Buffer.allocUnsafe(256);
  #length = 0;

  #reserve(count: number): void {
    if (this.#length + count <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#length + count));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }

  #head(major: number, argument: number): void {
    this.#reserve(9);
    const base = major << 5;
    if (argument < 24) {
      this.#buffer[this.#length++] = base | argument;
    } else if (argument < 0x100) {
      this.#buffer[this.#length++] = base | 24;
      this.#buffer[this.#length++] = argument;
    } else if (argument < 0x10000) {
      this.#buffer[this.#length++] = base | 25;
      this.#buffer.writeUInt16BE(argument, this.#length);
      this.#length += 2;
    } else if (argument < 0x100000000) {
      this.#buffer[this.#length++] = base | 26;
      this.#buffer.writeUInt32BE(argument, this.#length);
      this.#length += 4;
    } else {
      this.#buffer[this.#length++] = base | 27;
      this.#buffer.writeUInt32BE(Math.floor(argument / 0x100000000), this.#length);
      this.#buffer.writeUInt32BE(argument % 0x100000000, this.#length + 4);
      this.#length += 8;
    }
  }

  #bytes(bytes: Uint8Array): void {
    this.#reserve(bytes.length);
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  value(value: CborValue, depth: number): void {
    if (depth > CBOR_DEPTH_MAX) throw new CborError('value nested too deeply for CBOR');
    if (value === null) return this.#simpleByte(22);
    if (value === undefined) return this.#simpleByte(23);
    if (value === false) return this.#simpleByte(20);
    if (value === true) return this.#simpleByte(21);
    if (typeof value === 'number') return this.#number(value);
    if (typeof value === 'string') {
      const bytes = Buffer.from(value, 'utf8');
      this.#head(MAJOR_TEXT, bytes.length);
      return this.#bytes(bytes);
    }
    if (value instanceof Date) {
      this.#head(MAJOR_TAG, TAG_EPOCH_SECONDS);
      return this.#number(value.getTime() / 1000);
    }
    if (value instanceof Uint8Array) {
      this.#head(MAJOR_BYTES, value.length);
      return this.#bytes(value);
    }
    if (Array.isArray(value)) {
      this.#head(MAJOR_ARRAY, value.length);
      for (const element of value) this.value(element, depth + 1);
      return;
    }
    const entries = Object.entries(value).filter(([, member]) => member !== undefined);
    this.#head(MAJOR_MAP, entries.length);
    for (const [key, member] of entries) {
      this.value(key, depth + 1);
      this.value(member, depth + 1);
    }
  }

  #simpleByte(info: number): void {
    this.#reserve(1);
    this.#buffer[this.#length++] = (MAJOR_SIMPLE << 5) | info;
  }

  #number(value: number): void {
    // -0 is kept as a float: as an integer it would come back as 0.
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
      if (value >= 0) this.#head(MAJOR_UNSIGNED, value);
      else this.#head(MAJOR_NEGATIVE, -1 - value);
      return;
    }
    this.#reserve(9);
    this.#buffer[this.#length++] = (MAJOR_SIMPLE << 5) | 27;
    this.#buffer.writeDoubleBE(value, this.#length);
    this.#length += 8;
  }

  finish(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }
}
