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
