/**
 * The bill of a simulated run (issue 35): per variant, on-demand request units at list price for
 * the seconds a table or GSI was billed on-demand, provisioned capacity as the unit-hours it was
 * provisioned (UpdateTable changes included, second by second), and storage: the bytes held at
 * the end, as a GB-month and prorated to the run's length. The price table is AWS's us-east-1
 * list price for the Standard table class unless `--prices file.json` gives another (a region,
 * a negotiated rate); docs/SCENARIOS.md names the source.
 *
 * A finding says, for a run of an hour or more, when the other billing mode would have cost less
 * for the same run without more throttling: an on-demand variant against provisioned capacity fixed at each resource's busiest
 * second (it serves every second of the run); a provisioned variant against on-demand (a table
 * switched from provisioned admits its highest provisioned rate at once, section 3 of
 * docs/CAPACITY-MODEL.md, so nothing it served would throttle).
 */
import type { Finding } from './findings.js';
import type { VariantResult } from './runner.js';
import { fail } from './schema.js';

export interface PriceTable {
  /** Where the prices apply (shown in the summary). */
  readonly region: string;
  /** Dollars per million write request units (on-demand). */
  readonly writeRequestUnitsPerMillion: number;
  readonly readRequestUnitsPerMillion: number;
  /** Dollars per provisioned write capacity unit per hour. */
  readonly writeCapacityUnitHour: number;
  readonly readCapacityUnitHour: number;
  /** Dollars per GB stored for a month. */
  readonly storageGbMonth: number;
}

/**
 * us-east-1 (N. Virginia), Standard table class, AWS list prices: on-demand $0.625 per million
 * write and $0.125 per million read request units, provisioned $0.00065 per WCU-hour and $0.00013
 * per RCU-hour, storage $0.25 per GB-month (free tier left out). Sources in docs/SCENARIOS.md.
 */
export const US_EAST_1_PRICES: PriceTable = {
  region: 'us-east-1',
  writeRequestUnitsPerMillion: 0.625,
  readRequestUnitsPerMillion: 0.125,
  writeCapacityUnitHour: 0.00065,
  readCapacityUnitHour: 0.00013,
  storageGbMonth: 0.25,
};

/** The shortest run a billing-mode finding is made for: an hour (provisioned capacity is billed hourly). */
export const BILLING_FINDING_SECONDS_MIN = 3600;

/** Hours in AWS's billing month (the pricing pages' 730). */
export const HOURS_PER_MONTH = 730;
const BYTES_PER_GB = 1024 ** 3;
const PRICE_FIELDS = ['writeRequestUnitsPerMillion', 'readRequestUnitsPerMillion', 'writeCapacityUnitHour', 'readCapacityUnitHour', 'storageGbMonth'] as const;
/** A price above this is a typo (a million times the list price). */
const PRICE_MAX = 1_000_000;

/** A `--prices` document: `region` and any of the price fields; the rest stays us-east-1's. */
export function parsePrices(document: unknown, path: string): PriceTable {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) fail(path, 'must be a JSON object of prices, e.g. {"region": "eu-west-1", "writeRequestUnitsPerMillion": 0.7063}');
  const fields = document as Record<string, unknown>;
  const prices: Record<string, number | string> = { ...US_EAST_1_PRICES };
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'region') {
      if (typeof value !== 'string' || value.length === 0 || value.length > 64) fail(`${path}.region`, 'must be a region name');
      prices.region = value;
      continue;
    }
    if (!(PRICE_FIELDS as readonly string[]).includes(name)) fail(`${path}.${name}`, `is not a price; prices: region, ${PRICE_FIELDS.join(', ')}`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > PRICE_MAX) fail(`${path}.${name}`, `must be a number of dollars from 0 to ${PRICE_MAX}, got ${JSON.stringify(value)}`);
    prices[name] = value;
  }
  if (fields.region === undefined && Object.keys(fields).length > 0) prices.region = 'custom';
  return prices as unknown as PriceTable;
}

export interface VariantCost {
  /** The run's total: request units, capacity-hours and the storage prorated to the run. */
  readonly usd: number;
  readonly onDemandWriteUsd: number;
  readonly onDemandReadUsd: number;
  readonly provisionedWriteUsd: number;
  readonly provisionedReadUsd: number;
  readonly storageUsd: number;
  readonly writeRequestUnits: number;
  readonly readRequestUnits: number;
  readonly writeCapacityUnitHours: number;
  readonly readCapacityUnitHours: number;
  /** Bytes held by every table and GSI at the end, in GB, and their price for a month. */
  readonly storageGbAtEnd: number;
  readonly storageUsdPerMonth: number;
  /** The other billing mode for the same run (see the header): its cost and what it assumes. */
  readonly alternative: { readonly mode: 'provisioned' | 'on-demand'; readonly usd: number; readonly writeUnitsPerSecond: number; readonly readUnitsPerSecond: number };
}

/** The bill of one variant's run. */
export function variantCost(result: VariantResult, prices: PriceTable): VariantCost {
  let writeRequestUnits = 0;
  let readRequestUnits = 0;
  let writeUnitSeconds = 0;
  let readUnitSeconds = 0;
  let allWriteUnits = 0;
  let allReadUnits = 0;
  let peakWriteSum = 0;
  let peakReadSum = 0;
  let provisionedSeen = false;
  for (const resource of result.resources) {
    let peakWrite = 0;
    let peakRead = 0;
    resource.consumedWriteUnits.forEach((units, second) => {
      const provisionedWrite = resource.provisionedWriteUnits?.[second] ?? 0;
      const provisionedRead = resource.provisionedReadUnits?.[second] ?? 0;
      // Series read from a twin (analyze) say nothing of billing: counted as on-demand requests.
      const onDemand = resource.onDemand === undefined || resource.onDemand[second] === 1;
      const readUnits = resource.consumedReadUnits[second] ?? 0;
      allWriteUnits += units;
      allReadUnits += readUnits;
      peakWrite = Math.max(peakWrite, units);
      peakRead = Math.max(peakRead, readUnits);
      if (onDemand) {
        writeRequestUnits += units;
        readRequestUnits += readUnits;
      } else {
        provisionedSeen = true;
        writeUnitSeconds += provisionedWrite;
        readUnitSeconds += provisionedRead;
      }
    });
    peakWriteSum += Math.ceil(peakWrite);
    peakReadSum += Math.ceil(peakRead);
  }
  const onDemandWriteUsd = (writeRequestUnits / 1e6) * prices.writeRequestUnitsPerMillion;
  const onDemandReadUsd = (readRequestUnits / 1e6) * prices.readRequestUnitsPerMillion;
  const writeCapacityUnitHours = writeUnitSeconds / 3600;
  const readCapacityUnitHours = readUnitSeconds / 3600;
  const provisionedWriteUsd = writeCapacityUnitHours * prices.writeCapacityUnitHour;
  const provisionedReadUsd = readCapacityUnitHours * prices.readCapacityUnitHour;
  const storageBytes = (result.storage ?? []).reduce((total, resource) => total + resource.bytes, 0);
  const storageGbAtEnd = storageBytes / BYTES_PER_GB;
  const storageUsdPerMonth = storageGbAtEnd * prices.storageGbMonth;
  const storageUsd = storageUsdPerMonth * (result.simulatedSeconds / 3600 / HOURS_PER_MONTH);
  const hours = result.simulatedSeconds / 3600;
  const alternative = provisionedSeen
    ? { mode: 'on-demand' as const, usd: (allWriteUnits / 1e6) * prices.writeRequestUnitsPerMillion + (allReadUnits / 1e6) * prices.readRequestUnitsPerMillion + storageUsd, writeUnitsPerSecond: 0, readUnitsPerSecond: 0 }
    : {
        mode: 'provisioned' as const,
        usd: hours * (peakWriteSum * prices.writeCapacityUnitHour + peakReadSum * prices.readCapacityUnitHour) + storageUsd,
        writeUnitsPerSecond: peakWriteSum,
        readUnitsPerSecond: peakReadSum,
      };
  const usd = onDemandWriteUsd + onDemandReadUsd + provisionedWriteUsd + provisionedReadUsd + storageUsd;
  return {
    usd: cents(usd),
    onDemandWriteUsd: cents(onDemandWriteUsd),
    onDemandReadUsd: cents(onDemandReadUsd),
    provisionedWriteUsd: cents(provisionedWriteUsd),
    provisionedReadUsd: cents(provisionedReadUsd),
    storageUsd: cents(storageUsd),
    writeRequestUnits,
    readRequestUnits,
    writeCapacityUnitHours: Math.round(writeCapacityUnitHours * 100) / 100,
    readCapacityUnitHours: Math.round(readCapacityUnitHours * 100) / 100,
    storageGbAtEnd: Math.round(storageGbAtEnd * 1000) / 1000,
    storageUsdPerMonth: cents(storageUsdPerMonth),
    alternative: { ...alternative, usd: cents(alternative.usd) },
  };
}

/** A cheaper billing mode for the same run without more throttling, when there is one. */
export function billingFinding(result: VariantResult, cost: VariantCost, prices: PriceTable): Finding | undefined {
  const alternative = cost.alternative;
  // Provisioned capacity is billed by the hour: a run of minutes says nothing about the mode.
  if (result.simulatedSeconds < BILLING_FINDING_SECONDS_MIN) return undefined;
  // Under 1% apart, the comparison says nothing.
  if (!(alternative.usd < cost.usd * 0.99)) return undefined;
  const table = result.resources.find((resource) => resource.kind === 'table')?.name ?? '';
  const hours = Math.round((result.simulatedSeconds / 3600) * 100) / 100;
  const saving = cents(cost.usd - alternative.usd);
  const summary =
    alternative.mode === 'provisioned'
      ? `Provisioned capacity fixed at the busiest second of each table and GSI (${alternative.writeUnitsPerSecond.toLocaleString('en-US')} WCU, ${alternative.readUnitsPerSecond.toLocaleString('en-US')} RCU in all) would have cost ${dollars(alternative.usd)} for these ${hours} h instead of ${dollars(cost.usd)} on-demand (${prices.region} list prices), serving every second of the run.`
      : `On-demand would have cost ${dollars(alternative.usd)} for these ${hours} h instead of ${dollars(cost.usd)} provisioned (${prices.region} list prices): the same request units, and a table switched from provisioned admits its highest provisioned rate at once.`;
  const fixes =
    alternative.mode === 'provisioned'
      ? ['Switch to provisioned capacity with auto scaling (target 70%) whose minimum covers the steady load; keep on-demand for tables whose traffic is spiky or unknown.']
      : ['Switch to on-demand (PAY_PER_REQUEST), or lower the provisioned capacity and its auto scaling minimum to what the busiest hours consume.'];
  return {
    code: 'CHEAPER_BILLING_MODE',
    severity: 'warning',
    resource: table,
    summary,
    fixes,
    figures: { currentUsd: cost.usd, alternativeMode: alternative.mode, alternativeUsd: alternative.usd, savingUsd: saving, hours, region: prices.region },
  };
}

/** $1,234.56, or four decimals under a dollar. */
export function dollars(usd: number): string {
  const decimals = usd < 1 ? 4 : 2;
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })}`;
}

/** Dollars kept to a millionth: a short scenario's bill is fractions of a cent. */
function cents(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
