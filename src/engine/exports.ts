/**
 * Exports to S3 and imports from S3 (ExportTableToPointInTime, ImportTable): dynatwin has no S3, so
 * every bucket is one that does not exist. DynamoDB accepts such a request (IN_PROGRESS) and the job
 * then FAILS with FailureCode S3NoSuchBucket; dynatwin does the same at once, keeping each job's
 * record so that DescribeExport / ListExports / DescribeImport / ListImports answer as DynamoDB's.
 *
 * Storage layout: 0x00 'x' <job ARN UTF-8> → TransferRecord (in memory too; never large).
 */
import type { Storage } from '../storage/storage.js';

const CATALOG_BYTE = 0x00;
const TRANSFER_TAG = 0x78; // 'x'
const START = Buffer.from([CATALOG_BYTE, TRANSFER_TAG]);
const END = Buffer.from([CATALOG_BYTE, TRANSFER_TAG + 1]);

export interface TransferRecord {
  readonly kind: 'export' | 'import';
  readonly arn: string;
  readonly tableArn: string;
  readonly tableId?: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly clientToken?: string;
  /** The request's members that an ExportDescription / ImportTableDescription echoes. */
  readonly request: Readonly<Record<string, unknown>>;
  readonly failureCode: string;
  readonly failureMessage: string;
}

export class Transfers {
  readonly #storage: Storage;
  readonly #records = new Map<string, TransferRecord>();

  constructor(storage: Storage) {
    this.#storage = storage;
    for (const entry of storage.range({ start: START, end: END })) {
      const record = entry.value as TransferRecord;
      this.#records.set(record.arn, record);
    }
  }

  get(arn: string): TransferRecord | undefined {
    return this.#records.get(arn);
  }

  /** The jobs of one kind, oldest first. */
  list(kind: TransferRecord['kind']): TransferRecord[] {
    return [...this.#records.values()].filter((record) => record.kind === kind).sort((a, b) => a.startMs - b.startMs || (a.arn < b.arn ? -1 : 1));
  }

  byClientToken(kind: TransferRecord['kind'], token: string): TransferRecord | undefined {
    for (const record of this.#records.values()) if (record.kind === kind && record.clientToken === token) return record;
    return undefined;
  }

  async add(record: TransferRecord): Promise<void> {
    await this.#storage.write((txn) => txn.put(Buffer.concat([START, Buffer.from(record.arn, 'utf8')]), record));
    this.#records.set(record.arn, record);
  }
}
