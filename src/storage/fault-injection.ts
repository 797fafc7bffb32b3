/**
 * Disk faults injected into the logged store, for tests only: the crash test starts a server
 * with DYNATWIN_STORE_FAULTS set (read once by the CLI at start-up, never from a request), and the
 * store then fails, at random, frame writes (after writing a random part of the frame, as a full
 * or failing disk may), segment preparations (after part of the zeros), checkpoint marks and LMDB
 * commits (after part of the chunk), each with ENOSPC or EIO. What the store must do about it is
 * its DISK FAULTS rule (logged.ts): refuse, repair, resume, lose nothing acknowledged.
 */
import type { LogFile, LogIo } from './wal.js';
import { seededRandom } from '../model/random.js';

export type FaultStage = 'frame' | 'prepare' | 'mark' | 'lmdb';

const FAULT_STAGES: readonly FaultStage[] = ['frame', 'prepare', 'mark', 'lmdb'];
const FAULT_CODES = ['ENOSPC', 'EIO'] as const;
const FAULT_MESSAGES: Readonly<Record<(typeof FAULT_CODES)[number], string>> = {
  ENOSPC: 'no space left on device (injected)',
  EIO: 'i/o error (injected)',
};

export interface StoreFaultInjector {
  /** The error `stage` fails with now, or undefined (it goes ahead). */
  fault(stage: FaultStage): Error | undefined;
  /** How many of `total` units (bytes, entries) are done before an injected failure: 0 to total - 1. */
  prefix(total: number): number;
}

/** The log's file seam with the injector's faults on frame writes and preparations; `io` itself without one. */
export function injectingLogIo(io: LogIo, faults: StoreFaultInjector | undefined): LogIo {
  if (faults === undefined) return io;
  return {
    create: async (path, durable) => new InjectingLogFile(await io.create(path, durable), faults),
    async prepare(path, bytes, durable) {
      const fault = faults.fault('prepare');
      if (fault === undefined) return new InjectingLogFile(await io.prepare(path, bytes, durable), faults);
      // Part of the zeros, as a disk that fills up mid-way leaves them.
      const partial = await io.prepare(path, Math.max(1, faults.prefix(bytes)), durable);
      await partial.close();
      throw fault;
    },
  };
}

class InjectingLogFile implements LogFile {
  readonly #file: LogFile;
  readonly #faults: StoreFaultInjector;

  constructor(file: LogFile, faults: StoreFaultInjector) {
    this.#file = file;
    this.#faults = faults;
  }

  get preparedBytes(): number {
    return this.#file.preparedBytes;
  }

  async write(data: Uint8Array, position: number): Promise<void> {
    const fault = this.#faults.fault('frame');
    if (fault === undefined) return this.#file.write(data, position);
    const written = this.#faults.prefix(data.byteLength);
    if (written > 0) await this.#file.write(data.subarray(0, written), position);
    throw fault;
  }

  close(): Promise<void> {
    return this.#file.close();
  }
}


/**
 * An injector from a spec: `seed=<integer>,rate=<0..1>[,stages=frame+prepare+mark+lmdb]`. Each
 * operation of a listed stage fails with probability `rate` (ENOSPC or EIO, evenly), from a
 * seeded generator so a failing run can be repeated. `report` hears of each injected fault.
 */
export function storeFaultsFromSpec(spec: string, report: (stage: FaultStage, code: string) => void): StoreFaultInjector {
  const fields = new Map<string, string>();
  for (const part of spec.split(',')) {
    const [name, value] = part.split('=');
    if (name === undefined || value === undefined || name.trim() === '') throw new Error(`DYNATWIN_STORE_FAULTS: "${part}" is not name=value`);
    fields.set(name.trim(), value.trim());
  }
  const seed = Number(fields.get('seed') ?? '1');
  const rate = Number(fields.get('rate') ?? '0.01');
  if (!Number.isSafeInteger(seed) || !(rate >= 0 && rate <= 1)) throw new Error(`DYNATWIN_STORE_FAULTS: seed must be an integer and rate in 0..1 (${spec})`);
  const stages = new Set(fields.get('stages')?.split('+') ?? FAULT_STAGES);
  for (const stage of stages) if (!(FAULT_STAGES as readonly string[]).includes(stage)) throw new Error(`DYNATWIN_STORE_FAULTS: unknown stage ${stage}`);
  const random = seededRandom(seed);
  return {
    fault(stage) {
      if (!stages.has(stage) || random() >= rate) return undefined;
      const code = FAULT_CODES[random() < 0.5 ? 0 : 1];
      report(stage, code);
      return Object.assign(new Error(`${code}: ${FAULT_MESSAGES[code]}, ${stage}`), { code });
    },
    prefix(total) {
      return Math.floor(random() * total);
    },
  };
}
