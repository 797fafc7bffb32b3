/**
 * UTF-8 bytes ready to send, with their length and CRC32 as header text (Content-Length,
 * x-amz-crc32). Here, at the bottom, because three layers hand it on: an operation builds it
 * (operations/operation.ts encodeText), a store keeps it beside a value's JSON (storage.ts
 * ValueWithJson), the server sends it (server/http.ts).
 */
export interface EncodedText {
  readonly bytes: Buffer;
  readonly lengthText: string;
  readonly crc32Text: string;
}

/**
 * A response already encoded as JSON text, which the server sends as it is: for responses built
 * around a stored item's JSON text (GetItem), to spare encoding the item again. `body` is the
 * same response as an object, for callers inside the server (PartiQL) that read its members.
 * Here beside EncodedText because a store keeps GetItem's (storage.ts ValueWithJson.answer).
 */
export class JsonText {
  readonly text: string;
  readonly body: object;
  /** `text` already encoded, when the operation keeps it so (GetItem, per stored item). */
  readonly encoded: EncodedText | undefined;

  constructor(text: string, body: object, encoded?: EncodedText) {
    this.text = text;
    this.body = body;
    this.encoded = encoded;
  }
}
