/**
 * HTTP compression as DynamoDB speaks it: request bodies sent with `Content-Encoding: gzip` or
 * `deflate` (the SDKs' request compression), and responses of 4 KB or more compressed when the
 * client's `Accept-Encoding` asks for gzip or deflate. Pure choices here; the streaming is in http.ts.
 */
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';

/**
 * DynamoDB compresses a response only from this many bytes on (ScyllaDB's Alternator suite,
 * test_compressed_response.py, run against DynamoDB: 4 KB, a response of exactly the threshold
 * is compressed).
 */
export const RESPONSE_COMPRESSION_BYTES_MIN = 4096;

export type ResponseEncoding = 'gzip' | 'deflate';

/** What a request's Content-Encoding asks of its body. */
export type RequestDecoding = 'identity' | 'gzip' | 'deflate' | 'unsupported';

export function requestDecodingOf(header: string): RequestDecoding {
  const name = header.trim().toLowerCase();
  if (name === 'gzip') return 'gzip';
  if (name === 'deflate') return 'deflate';
  if (name === 'identity' || name === '') return 'identity';
  return 'unsupported';
}

/**
 * A streaming decompressor: gzip (several concatenated members are one body, as RFC 1952 allows
 * and DynamoDB accepts) or deflate (the zlib format, RFC 9110's "deflate").
 */
export function createRequestDecoder(decoding: 'gzip' | 'deflate'): Gunzip | Inflate {
  return decoding === 'gzip' ? createGunzip() : createInflate();
}

/** A quality value outside [0, 1] is clamped; an unreadable one counts as 1 (as DynamoDB reads them). */
function qualityOf(parameters: readonly string[]): number | undefined {
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals < 0) return undefined;
    const name = parameter.slice(0, equals);
    // `q =0` is read as an unreadable quality (1), `nq=0` spoils the entry: both observed.
    if (name.trimEnd() !== 'q') return undefined;
    if (name !== 'q') return 1;
    const value = parameter.slice(equals + 1).trim();
    const quality = Number(value);
    if (value === '' || Number.isNaN(quality)) return 1;
    return Math.min(1, Math.max(0, quality));
  }
  return 1;
}

/** Upper bound on the Accept-Encoding entries read: a hostile header costs a bounded scan. */
const ACCEPT_ENCODING_ENTRIES_MAX = 32;

/**
 * The encoding a response is compressed with for this Accept-Encoding, or undefined: the highest
 * quality of gzip and deflate (q=0 refuses); a named coding beats `*` at equal quality, the one
 * named first wins a tie, and `*` alone means gzip. Observed on DynamoDB by the same suite
 * (test_accept_encoding_header). When the header comes several times, only the first counts, as
 * on DynamoDB.
 */
export function responseEncodingOf(header: string | string[] | undefined): ResponseEncoding | undefined {
  if (header === undefined) return undefined;
  const text = typeof header === 'string' ? header : header[0];
  if (text === undefined || text.length === 0) return undefined;
  let gzip: number | undefined;
  let deflate: number | undefined;
  let wildcard: number | undefined;
  let first: ResponseEncoding | undefined;
  const entries = text.split(',', ACCEPT_ENCODING_ENTRIES_MAX);
  for (const entry of entries) {
    const parts = entry.split(';');
    const name = parts[0]!.trim().toLowerCase();
    if (name !== 'gzip' && name !== 'deflate' && name !== '*') continue;
    const quality = qualityOf(parts.slice(1).map((part) => part.trim()));
    if (quality === undefined) continue;
    if (name === '*') {
      wildcard ??= quality;
    } else if (name === 'gzip') {
      gzip = Math.max(gzip ?? 0, quality);
      if (quality > 0) first ??= 'gzip';
    } else {
      deflate = Math.max(deflate ?? 0, quality);
      if (quality > 0) first ??= 'deflate';
    }
  }
  const gzipQuality = gzip ?? wildcard ?? 0;
  const deflateQuality = deflate ?? wildcard ?? 0;
  if (gzipQuality === 0 && deflateQuality === 0) return undefined;
  if (gzipQuality !== deflateQuality) return gzipQuality > deflateQuality ? 'gzip' : 'deflate';
  // A tie: a coding named outright beats one reached through '*'; two named: the first.
  if (gzip !== undefined && deflate !== undefined) return first ?? 'gzip';
  if (deflate !== undefined) return 'deflate';
  return 'gzip';
}
