/**
 * Request ids in DynamoDB's format (52 characters of [A-Z0-9]). A random per-server stem plus a
 * counter keeps them unique without drawing random bytes for every request.
 */
import { randomBytes } from 'node:crypto';

const ID_LENGTH = 52;
const COUNTER_DIGITS = 12;

export class RequestIds {
  private readonly stem: string;
  private counter = 0;

  constructor() {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const bytes = randomBytes(ID_LENGTH - COUNTER_DIGITS);
    let stem = '';
    for (const byte of bytes) stem += alphabet[byte % alphabet.length];
    this.stem = stem;
  }

  next(): string {
    this.counter++;
    return this.stem + this.counter.toString(36).toUpperCase().padStart(COUNTER_DIGITS, '0');
  }
}
