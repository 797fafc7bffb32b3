/**
 * DynamoDB Number handling without a big-decimal library: validation, canonical text, ordering.
 *
 * This runs for every N in every item, so the parser is a single pass over the character codes that
 * records *where* the significant digits are instead of copying them; an input that is already in
 * canonical form (the common case: clients send `"42"`, `"-3.5"`) is returned unchanged with no
 * allocation.
 *
 * DynamoDB's number rules (Developer Guide "Naming rules and data types", limits table):
 * at most 38 significant digits; magnitude between 1E-130 and 9.9999999999999999999999999999999999999E+125;
 * zero allowed; leading and trailing zeros are not stored, so values come back normalised.
 */

import { validationError } from '../errors.js';

/** A number split into sign, significant digits and the power of ten of the first digit. */
export interface ParsedNumber {
  readonly negative: boolean;
  /** Significant digits without leading or trailing zeros; `''` for zero. */
  readonly digits: string;
  /** Power of ten of the first significant digit (`123.4` → 2, `0.05` → -2); 0 for zero. */
  readonly exponent: number;
}

/** Sign, digit count and leading exponent: all the item-size formula needs, without copying digits. */
export interface NumberShape {
  readonly negative: boolean;
  /** Number of significant digits; 0 for zero. */
  readonly digitCount: number;
  readonly exponent: number;
}

export const MAX_SIGNIFICANT_DIGITS = 38;
/** 9.99…E+125 is the largest magnitude, so the first digit may sit at most at 10^125. */
export const MAX_EXPONENT = 125;
/** 1E-130 is the smallest non-zero magnitude. */
export const MIN_EXPONENT = -130;

const MESSAGE_EMPTY = 'The parameter cannot be converted to a numeric value';
const MESSAGE_INVALID_PREFIX = 'The parameter cannot be converted to a numeric value: ';
const MESSAGE_TOO_PRECISE = 'Attempting to store more than 38 significant digits in a Number';
const MESSAGE_OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const MESSAGE_UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';

const CHAR_PLUS = 0x2b;
const CHAR_MINUS = 0x2d;
const CHAR_DOT = 0x2e;
const CHAR_ZERO = 0x30;
const CHAR_NINE = 0x39;
const CHAR_E_UPPER = 0x45;
const CHAR_E_LOWER = 0x65;

/**
 * Explicit exponents stop accumulating here. Any value this large is out of range whatever the
 * mantissa (the text would need ~10^12 characters of zeros to bring it back), and it keeps the
 * arithmetic exact in a double.
 */
const EXPONENT_CLAMP = 1e12;

/** Where the parts of a syntactically valid number text are. Indices are into the text. */
interface NumberScan {
  readonly negative: boolean;
  /** Index of the first mantissa character (after any sign). */
  readonly mantissaStart: number;
  /** Index just past the mantissa: the `e`/`E`, or the text length. */
  readonly mantissaEnd: number;
  /** Index of the decimal point, or -1. */
  readonly dot: number;
  /** Index of the first non-zero digit, or -1 if the value is zero. */
  readonly first: number;
  /** Index of the last non-zero digit, or -1 if the value is zero. */
  readonly last: number;
  /** Value of the explicit `e` exponent (0 if absent), clamped to ±EXPONENT_CLAMP. */
  readonly explicitExponent: number;
}

function isDigit(code: number): boolean {
  return code >= CHAR_ZERO && code <= CHAR_NINE;
}

/**
 * Checks the grammar `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?` — the forms
 * DynamoDB accepts (it takes a leading `+` and `1.`/`.5`, but no whitespace, hex, `Infinity` or
 * `NaN`) — and locates the parts. Returns undefined on a syntax error.
 */
function scanNumber(text: string): NumberScan | undefined {
  const length = text.length;
  let index = 0;
  let code = text.charCodeAt(0);
  const negative = code === CHAR_MINUS;
  if (negative || code === CHAR_PLUS) index = 1;
  const mantissaStart = index;
  let dot = -1;
  let first = -1;
  let last = -1;
  for (; index < length; index++) {
    code = text.charCodeAt(index);
    if (isDigit(code)) {
      if (code !== CHAR_ZERO) {
        if (first < 0) first = index;
        last = index;
      }
    } else if (code === CHAR_DOT && dot < 0) {
      dot = index;
    } else {
      break;
    }
  }
  const mantissaEnd = index;
  const mantissaDigits = mantissaEnd - mantissaStart - (dot < 0 ? 0 : 1);
  if (mantissaDigits === 0) return undefined;
  let explicitExponent = 0;
  if (index < length) {
    explicitExponent = scanExponent(text, index);
    if (Number.isNaN(explicitExponent)) return undefined;
  }
  return { negative, mantissaStart, mantissaEnd, dot, first, last, explicitExponent };
}

/** Parses `[eE] [+-]? digits` running to the end of the text; NaN if malformed. */
function scanExponent(text: string, start: number): number {
  const length = text.length;
  let code = text.charCodeAt(start);
  if (code !== CHAR_E_LOWER && code !== CHAR_E_UPPER) return NaN;
  let index = start + 1;
  code = text.charCodeAt(index);
  const negative = code === CHAR_MINUS;
  if (negative || code === CHAR_PLUS) index++;
  if (index === length) return NaN;
  let value = 0;
  for (; index < length; index++) {
    code = text.charCodeAt(index);
    if (!isDigit(code)) return NaN;
    if (value < EXPONENT_CLAMP) value = value * 10 + (code - CHAR_ZERO);
  }
  return negative ? -value : value;
}

/** Power of ten of the first significant digit of a non-zero scan. */
function leadingExponent(scan: NumberScan): number {
  const point = scan.dot < 0 ? scan.mantissaEnd : scan.dot;
  const position = scan.first < point ? point - scan.first - 1 : point - scan.first;
  return position + scan.explicitExponent;
}

/** Number of significant digits of a non-zero scan (the decimal point is not a digit). */
function significantDigitCount(scan: NumberScan): number {
  const spansDot = scan.dot > scan.first && scan.dot < scan.last;
  return scan.last - scan.first + 1 - (spansDot ? 1 : 0);
}

function significantDigits(text: string, scan: NumberScan): string {
  if (scan.dot > scan.first && scan.dot < scan.last) {
    return text.slice(scan.first, scan.dot) + text.slice(scan.dot + 1, scan.last + 1);
  }
  return text.slice(scan.first, scan.last + 1);
}

/**
 * Applies DynamoDB's limits in dynalite's order — overflow, underflow, then precision — so a value
 * breaking several limits reports the same error as the reference implementation.
 */
function checkLimits(exponent: number, digitCount: number): void {
  if (exponent > MAX_EXPONENT) throw validationError(MESSAGE_OVERFLOW);
  if (exponent < MIN_EXPONENT) throw validationError(MESSAGE_UNDERFLOW);
  if (digitCount > MAX_SIGNIFICANT_DIGITS) throw validationError(MESSAGE_TOO_PRECISE);
}

/** Scans and validates; throws DynamoDB's ValidationException for bad syntax or out-of-range values. */
function scanValidNumber(text: string): NumberScan {
  // DynamoDB distinguishes the empty string: its message has no `: <text>` suffix.
  if (text.length === 0) throw validationError(MESSAGE_EMPTY);
  const scan = scanNumber(text);
  if (scan === undefined) throw validationError(MESSAGE_INVALID_PREFIX + text);
  if (scan.first >= 0) checkLimits(leadingExponent(scan), significantDigitCount(scan));
  return scan;
}

/**
 * True when the text already is what DynamoDB would return: no sign but `-`, no exponent, no
 * leading zeros (except the single `0` of `0.x`), and no trailing fractional zeros or bare point.
 */
function isCanonicalText(text: string, scan: NumberScan): boolean {
  if (scan.mantissaEnd !== text.length) return false;
  if (text.charCodeAt(0) === CHAR_PLUS) return false;
  const integerEnd = scan.dot < 0 ? scan.mantissaEnd : scan.dot;
  const integerLength = integerEnd - scan.mantissaStart;
  if (integerLength === 0) return false;
  if (text.charCodeAt(scan.mantissaStart) === CHAR_ZERO && !(integerLength === 1 && scan.dot >= 0)) return false;
  return scan.dot < 0 || scan.last === scan.mantissaEnd - 1;
}

/** Plain decimal notation of sign × 0.digits × 10^(exponent+1), the form DynamoDB returns. */
export function formatNumber(parsed: ParsedNumber): string {
  const { digits, exponent } = parsed;
  if (digits.length === 0) return '0';
  let body: string;
  if (exponent < 0) {
    body = '0.' + '0'.repeat(-exponent - 1) + digits;
  } else if (exponent >= digits.length - 1) {
    body = digits + '0'.repeat(exponent - digits.length + 1);
  } else {
    body = digits.slice(0, exponent + 1) + '.' + digits.slice(exponent + 1);
  }
  return parsed.negative ? '-' + body : body;
}

/**
 * Validates DynamoDB number text and returns its canonical form (plain notation, no exponent, no
 * redundant zeros, no `+`, `-0` → `0`). Throws a ValidationException with DynamoDB's message.
 */
export function canonicalizeNumber(text: string): string {
  const scan = scanValidNumber(text);
  // Every zero (`-0`, `0.000`, `0e5`) is stored as plain 0: DynamoDB keeps no sign or scale.
  if (scan.first < 0) return '0';
  if (isCanonicalText(text, scan)) return text;
  return formatNumber({
    negative: scan.negative,
    digits: significantDigits(text, scan),
    exponent: leadingExponent(scan),
  });
}

const ZERO: ParsedNumber = { negative: false, digits: '', exponent: 0 };

/**
 * Splits number text into sign, significant digits and exponent. Meant for canonical text, but
 * accepts (and validates, with the same errors as canonicalizeNumber) any DynamoDB number text.
 */
export function parseCanonicalNumber(text: string): ParsedNumber {
  const scan = scanValidNumber(text);
  if (scan.first < 0) return ZERO;
  return { negative: scan.negative, digits: significantDigits(text, scan), exponent: leadingExponent(scan) };
}

const ZERO_SHAPE: NumberShape = { negative: false, digitCount: 0, exponent: 0 };

/** Like parseCanonicalNumber, but only counts the digits (no string is built). */
export function numberShape(text: string): NumberShape {
  const scan = scanValidNumber(text);
  if (scan.first < 0) return ZERO_SHAPE;
  return { negative: scan.negative, digitCount: significantDigitCount(scan), exponent: leadingExponent(scan) };
}

/** -1, 0 or 1 for a canonical number's sign; canonical zero is exactly `0`. */
function signOf(canonical: string): number {
  if (canonical.charCodeAt(0) === CHAR_MINUS) return -1;
  return canonical.length === 1 && canonical.charCodeAt(0) === CHAR_ZERO ? 0 : 1;
}

/** Digits before the point of a canonical non-zero magnitude starting at `start`; `0.x` has none. */
function integerDigitCount(canonical: string, start: number): number {
  if (canonical.charCodeAt(start) === CHAR_ZERO) return 0;
  const dot = canonical.indexOf('.', start);
  return (dot < 0 ? canonical.length : dot) - start;
}

/**
 * Compares two same-signed non-zero canonical magnitudes. Canonical text has no leading zeros, so
 * more integer digits means larger; with equal integer lengths the points line up and plain
 * character order decides (a proper prefix is smaller, as trailing zeros are never written).
 * Both texts carry the same sign prefix, so comparing whole strings is fine.
 */
function compareMagnitudes(a: string, b: string, start: number): number {
  const integerA = integerDigitCount(a, start);
  const integerB = integerDigitCount(b, start);
  if (integerA !== integerB) return integerA < integerB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders two canonical number texts by value (-1, 0, 1) without converting to floating point. */
export function compareNumbers(a: string, b: string): number {
  const signA = signOf(a);
  const signB = signOf(b);
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  // Among negatives the larger magnitude is the smaller number.
  return signA < 0 ? compareMagnitudes(b, a, 1) : compareMagnitudes(a, b, 0);
}
