import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { DynamoError } from '../src/errors.js';
import {
  canonicalizeNumber,
  compareNumbers,
  formatNumber,
  numberShape,
  parseCanonicalNumber,
} from '../src/model/numbers.js';
import { seededRandom as randomSource } from './support/random.js';

// decimal.js's ESM build has only a default export while its typings are CommonJS, so a default
// import type-checks as the namespace; loading the CommonJS build gives matching types and runtime.
const { Decimal } = createRequire(import.meta.url)('decimal.js') as typeof import('decimal.js');

const EMPTY = 'The parameter cannot be converted to a numeric value';
const INVALID = 'The parameter cannot be converted to a numeric value: ';
const PRECISION = 'Attempting to store more than 38 significant digits in a Number';
const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';


function assertValidationError(fn: () => unknown, message: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof DynamoError, 'expected a DynamoError');
    assert.equal(error.code, 'ValidationException');
    assert.equal(error.message, message);
    return true;
  });
}

test('canonical forms', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['1', '1'],
    ['42', '42'],
    ['-7', '-7'],
    ['100', '100'],
    ['1.0', '1'],
    ['0.10', '0.1'],
    ['-1E2', '-100'],
    ['1e+2', '100'],
    ['1.5E+3', '1500'],
    ['1.5E2', '150'],
    ['00042', '42'],
    ['3.1400', '3.14'],
    ['-0', '0'],
    ['+0', '0'],
    ['-0.000', '0'],
    ['0e999', '0'],
    ['0.0e-999', '0'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['5.', '5'],
    ['+5', '5'],
    ['+1.5', '1.5'],
    ['+1e2', '100'],
    ['0.5', '0.5'],
    ['00.5', '0.5'],
    ['-0.05', '-0.05'],
    ['12.340e1', '123.4'],
    ['123.45e-5', '0.0012345'],
    ['1234.5e-2', '12.345'],
    ['0.000120E3', '0.12'],
    ['5e0', '5'],
    ['1E-1', '0.1'],
    ['10.', '10'],
  ];
  for (const [input, expected] of cases) assert.equal(canonicalizeNumber(input), expected, input);
});

test('canonical text is returned as the same string', () => {
  for (const text of ['1', '-1', '0.5', '-12.25', '100', '0']) assert.equal(canonicalizeNumber(text), text);
});

test('range boundaries', () => {
  assert.equal(canonicalizeNumber('1e-130'), '0.' + '0'.repeat(129) + '1');
  assert.equal(canonicalizeNumber('-1E-130'), '-0.' + '0'.repeat(129) + '1');
  assert.equal(canonicalizeNumber('0.1e-129'), '0.' + '0'.repeat(129) + '1');
  const largest = '9.9999999999999999999999999999999999999E+125';
  const expected = '9'.repeat(38) + '0'.repeat(88);
  assert.equal(expected.length, 126);
  assert.equal(canonicalizeNumber(largest), expected);
  assert.equal(canonicalizeNumber('-' + largest), '-' + expected);
  assert.equal(canonicalizeNumber('1e125'), '1' + '0'.repeat(125));
  assertValidationError(() => canonicalizeNumber('1e126'), OVERFLOW);
  assertValidationError(() => canonicalizeNumber('1E+126'), OVERFLOW);
  assertValidationError(() => canonicalizeNumber('-1e126'), OVERFLOW);
  assertValidationError(() => canonicalizeNumber('10e125'), OVERFLOW);
  assertValidationError(() => canonicalizeNumber('1' + '0'.repeat(126)), OVERFLOW);
  assertValidationError(() => canonicalizeNumber('1e-131'), UNDERFLOW);
  assertValidationError(() => canonicalizeNumber('-1e-131'), UNDERFLOW);
  assertValidationError(() => canonicalizeNumber('0.1e-130'), UNDERFLOW);
  assertValidationError(() => canonicalizeNumber('0.' + '0'.repeat(130) + '1'), UNDERFLOW);
  assertValidationError(() => canonicalizeNumber('1e99999999999999999999'), OVERFLOW);
  assertValidationError(() => canonicalizeNumber('1e-99999999999999999999'), UNDERFLOW);
});

test('38 significant digits are accepted, 39 are not', () => {
  const digits38 = '12345678901234567890123456789012345678';
  assert.equal(canonicalizeNumber(digits38), digits38);
  assert.equal(canonicalizeNumber('0.' + digits38), '0.' + digits38);
  assert.equal(canonicalizeNumber('-' + digits38 + '000'), '-' + digits38 + '000');
  // Leading and trailing zeros are not significant.
  assert.equal(canonicalizeNumber('000' + digits38 + '.000'), digits38);
  assertValidationError(() => canonicalizeNumber(digits38 + '9'), PRECISION);
  assertValidationError(() => canonicalizeNumber('1.' + '0'.repeat(37) + '1'), PRECISION);
  assertValidationError(() => canonicalizeNumber('-0.' + digits38 + '9'), PRECISION);
});

test('limit checks run in dynalite order: overflow, underflow, precision', () => {
  const digits39 = '1'.repeat(39);
  assertValidationError(() => canonicalizeNumber(digits39 + 'e200'), OVERFLOW);
  assertValidationError(() => canonicalizeNumber(digits39 + 'e-200'), UNDERFLOW);
  assertValidationError(() => canonicalizeNumber(digits39), PRECISION);
});

test('invalid texts', () => {
  assertValidationError(() => canonicalizeNumber(''), EMPTY);
  const invalid = [
    '1e', '1e+', 'e5', '.', '-', '+', '-.', '.e1', 'abc', ' 1', '1 ', '1\n', 'Infinity', '-Infinity', 'NaN',
    '0x10', '1.2.3', '1+2', '--1', '+-1', '1e2.5', '1e2e3', '1_000', '١', '1,5', 'e', '+e2',
  ];
  for (const text of invalid) assertValidationError(() => canonicalizeNumber(text), INVALID + text);
});

test('parseCanonicalNumber, numberShape and formatNumber', () => {
  assert.deepEqual(parseCanonicalNumber('123.4'), { negative: false, digits: '1234', exponent: 2 });
  assert.deepEqual(parseCanonicalNumber('-0.05'), { negative: true, digits: '5', exponent: -2 });
  assert.deepEqual(parseCanonicalNumber('1000'), { negative: false, digits: '1', exponent: 3 });
  assert.deepEqual(parseCanonicalNumber('0'), { negative: false, digits: '', exponent: 0 });
  assert.deepEqual(numberShape('-120.05'), { negative: true, digitCount: 5, exponent: 2 });
  assert.deepEqual(numberShape('0'), { negative: false, digitCount: 0, exponent: 0 });
  for (const text of ['0', '1', '-1', '0.001', '123.456', '-9000', '1' + '0'.repeat(125)]) {
    assert.equal(formatNumber(parseCanonicalNumber(text)), text);
  }
});

test('compareNumbers orders canonical numbers by value', () => {
  const ordered = [
    '-1000', '-999.5', '-100', '-10.01', '-10', '-9.99', '-1', '-0.5', '-0.05', '-0.0001', '0',
    '0.0001', '0.001', '0.01', '0.1', '0.11', '0.2', '1', '1.5', '2', '9.999', '10', '10.5', '99', '100',
  ];
  for (let i = 0; i < ordered.length; i++) {
    for (let j = 0; j < ordered.length; j++) {
      const expected = i < j ? -1 : i > j ? 1 : 0;
      assert.equal(compareNumbers(ordered[i], ordered[j]), expected, `${ordered[i]} vs ${ordered[j]}`);
    }
  }
});

const GRAMMAR = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** What canonicalizeNumber must do, derived independently from decimal.js. */
function expectedOutcome(text: string): { value: string } | { error: string } {
  if (text === '') return { error: EMPTY };
  if (!GRAMMAR.test(text)) return { error: INVALID + text };
  const decimal = new Decimal(text);
  if (decimal.isZero()) return { value: '0' };
  if (decimal.e > 125) return { error: OVERFLOW };
  if (decimal.e < -130) return { error: UNDERFLOW };
  if (decimal.sd() > 38) return { error: PRECISION };
  return { value: decimal.toFixed() };
}

function randomDigits(random: () => number, count: number): string {
  let digits = '';
  for (let i = 0; i < count; i++) digits += String(Math.floor(random() * 10));
  return digits;
}

function pick<T>(random: () => number, choices: readonly T[]): T {
  return choices[Math.floor(random() * choices.length)];
}

/** A well-formed number text with random signs, zero padding, point placement and exponent. */
function randomNumberText(random: () => number): string {
  const sign = pick(random, ['', '', '-', '+']);
  const zeros = '0'.repeat(random() < 0.3 ? Math.floor(random() * 4) : 0);
  const integer = zeros + randomDigits(random, Math.floor(random() * (random() < 0.2 ? 45 : 8)));
  const fraction = random() < 0.5 ? randomDigits(random, Math.floor(random() * 10)) + '0'.repeat(random() < 0.3 ? 2 : 0) : '';
  let mantissa = integer;
  if (fraction !== '' || random() < 0.1) mantissa += '.' + fraction;
  if (!/\d/.test(mantissa)) mantissa = '0' + mantissa;
  if (random() < 0.4) {
    const exponent = Math.floor(random() * 300) - 150;
    const exponentSign = exponent < 0 ? '-' : pick(random, ['', '+']);
    mantissa += pick(random, ['e', 'E']) + exponentSign + String(Math.abs(exponent));
  }
  return sign + mantissa;
}

function randomJunkText(random: () => number): string {
  const alphabet = '0123456789012345.eE+-- xI';
  let text = '';
  const length = Math.floor(random() * 10);
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
}

test('fuzz: 20,000 inputs agree with decimal.js and only ever throw ValidationException', () => {
  const random = randomSource(0xd1a0);
  for (let i = 0; i < 20_000; i++) {
    const text = i % 3 === 0 ? randomJunkText(random) : randomNumberText(random);
    const expected = expectedOutcome(text);
    let actual: { value: string } | { error: string };
    try {
      actual = { value: canonicalizeNumber(text) };
    } catch (error) {
      assert.ok(error instanceof DynamoError, `non-DynamoError for ${JSON.stringify(text)}`);
      assert.equal(error.code, 'ValidationException');
      actual = { error: error.message };
    }
    assert.deepEqual(actual, expected, JSON.stringify(text));
    if ('value' in actual) {
      assert.ok(new Decimal(actual.value).eq(new Decimal(text)), JSON.stringify(text));
      assert.equal(canonicalizeNumber(actual.value), actual.value, 'canonical form is a fixed point');
    }
  }
});

test('fuzz: compareNumbers agrees with decimal.js', () => {
  const random = randomSource(0xc0ffee);
  const values: string[] = [];
  while (values.length < 2_000) {
    const outcome = expectedOutcome(randomNumberText(random));
    if ('value' in outcome) values.push(outcome.value);
  }
  for (let i = 0; i < 20_000; i++) {
    const a = pick(random, values);
    const b = random() < 0.05 ? a : pick(random, values);
    assert.equal(compareNumbers(a, b), new Decimal(a).cmp(new Decimal(b)), `${a} vs ${b}`);
  }
});
