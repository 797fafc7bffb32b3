/**
 * SHA-256 for @smithy/signature-v4 from node:crypto (an HMAC when given a secret): the tests that
 * sign requests themselves (raw HTTP, inspection routes, analyze's signer) hand it to SignatureV4.
 */
import { createHash, createHmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string' ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

export class NodeSha256 {
  readonly #hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: SourceData) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.#hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.#hash.digest();
  }
  reset(): void {}
}
