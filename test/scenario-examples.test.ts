/**
 * The seed articles' examples in examples/scenarios/ (issue 18), run through `simulate` with their
 * figures asserted, and their HTML reports opened in headless Chromium (charts and findings;
 * screenshots in test-results/dashboard/scenario-*.png):
 *
 * - date-keyed-log.json (seed 003, 2016): on the classic (pre-adaptive) model a date-keyed GSI
 *   throttles after its first size split; a 1–10 suffix does not; monthly tables need less
 *   provisioned throughput than one table raised to survive the split; today's model lends.
 * - delivery-lists.json (seed 002): four designs of exactly-once target lists — capacity per
 *   delivery, throttles and item-size failures side by side.
 * - gsi-sharding.json (seed 004, shortened to 30 s): a constant GSI key against K = 5 and the
 *   K = 70 that `recommendShards` gives for 4 partitions, and the scatter-gather read cost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import type { Finding } from '../src/scenarios/findings.js';
import { renderHtmlReport } from '../src/scenarios/report-html.js';
import type { SimulationReport, VariantReport } from '../src/scenarios/report.js';
import { recommendShards } from '../src/scenarios/shards.js';
import { simulate } from '../src/scenarios/simulate.js';
import { browserAvailability, launchChromium, MISSING_BROWSER_MESSAGE, screenshotPath } from './support/browser.js';

interface PageElement {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement> };

function example(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../examples/scenarios/${name}`, import.meta.url)), 'utf8')) as Record<string, unknown>;
}

/** The example with every phase of every variant cut to `seconds`. */
function shortened(name: string, seconds: number): Record<string, unknown> {
  const document = example(name) as { workload?: { phases: { durationSeconds: number }[] }; variants: { workload?: { phases: { durationSeconds: number }[] } }[] };
  for (const phases of [document.workload?.phases ?? [], ...document.variants.map((variant) => variant.workload?.phases ?? [])]) {
    for (const phase of phases) phase.durationSeconds = Math.min(phase.durationSeconds, seconds);
  }
  return document as unknown as Record<string, unknown>;
}

// The three run at once (each variant in a worker thread).
const runs = {
  dateKeyed: simulate(example('date-keyed-log.json')),
  deliveries: simulate(example('delivery-lists.json')),
  sharding: simulate(shortened('gsi-sharding.json', 30)),
};

const scratch = mkdtempSync(join(tmpdir(), 'dynatwin-scenario-examples-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function variant(report: SimulationReport, name: string): VariantReport {
  const found = report.variants.find((candidate) => candidate.name === name);
  assert.ok(found, `variant ${name}`);
  return found;
}

function finding(variant: VariantReport, code: string): Finding {
  const found = variant.findings.find((candidate) => candidate.code === code);
  assert.ok(found, `${variant.name}: ${code} in ${variant.findings.map((f) => f.code).join(', ') || 'no findings'}`);
  return found;
}

function gsi(variant: VariantReport, name: string): VariantReport['resources'][number] {
  return variant.resources.find((resource) => resource.name === name)!;
}

describe('examples/scenarios/date-keyed-log.json (seed article 003)', () => {
  test('classic model: the date-keyed GSI throttles after its first size split, named as a time key and as dilution', async () => {
    const report = await runs.dateKeyed;
    const dated = variant(report, 'date-gsi');
    const index = gsi(dated, 'user_log/index/date-index');
    assert.equal(index.series.partitionCount[0], 1, 'one GSI partition at first');
    const dilution = finding(dated, 'CLASSIC_DILUTION_AFTER_SPLIT');
    const splitAt = Number(dilution.figures.splitAtSecond);
    assert.ok(splitAt > 60 && splitAt < 110, `the split comes in the 'today' phase: ${splitAt} s`);
    assert.equal(sumOf(index.series.throttleEvents.slice(0, splitAt)), 0, 'no throttle before the split');
    assert.ok(index.totals.throttleEvents > 1000, `throttles after it: ${index.totals.throttleEvents}`);
    assert.equal(dilution.figures.allocationBeforeUnits, 500);
    assert.equal(dilution.figures.allocationAfterUnits, 250);
    assert.ok(dated.totals.firstThrottleSeconds! > splitAt, `first throttle ${dated.totals.firstThrottleSeconds} s after the split`);
    const timeKeyed = finding(dated, 'TIME_KEYED_GSI');
    assert.equal(timeKeyed.severity, 'error');
    assert.equal(timeKeyed.figures.attribute, 'date');
    assert.ok(dated.totals.acceptedPerSecondLastMinute < 360, `the GSI partition sets the pace: ${dated.totals.acceptedPerSecondLastMinute}/s of 400`);
  });

  test('a 1–10 suffix spreads the date: no throttle, no finding', async () => {
    const suffixed = variant(await runs.dateKeyed, 'date-suffix');
    assert.equal(suffixed.totals.throttled, 0);
    assert.equal(suffixed.totals.accepted, suffixed.totals.offered);
    assert.deepEqual(suffixed.findings, []);
    assert.equal(suffixed.keys['user_log/index/date-index']!.distinct! >= 10, true);
  });

  test('monthly tables (last month lowered to 1/1) hold without throttling and provision less than one table raised to survive the split', async () => {
    const report = await runs.dateKeyed;
    const monthly = variant(report, 'monthly-tables');
    const raised = variant(report, 'date-gsi-raised');
    assert.equal(monthly.totals.throttled, 0);
    assert.equal(raised.totals.throttled, 0);
    assert.equal(monthly.totals.accepted, monthly.totals.offered);
    const current = gsi(monthly, 'user_log_202601/index/date-index');
    assert.equal(current.totals.partitions, 1, "this month's table has not split");
    assert.equal(monthly.provisioned.writeUnitsPerSecond, 1002, '500 + 500 this month, 1 + 1 last month');
    assert.equal(raised.provisioned.writeUnitsPerSecond, 1500);
    assert.ok(monthly.provisioned.dollarsPerMonth < raised.provisioned.dollarsPerMonth, `${monthly.provisioned.dollarsPerMonth} < ${raised.provisioned.dollarsPerMonth}`);
    assert.equal(finding(monthly, 'TIME_KEYED_GSI').severity, 'warning', 'still a date key: a warning');
  });

  test("today's model: adaptive capacity lends the hot GSI partition what the split took — no throttle", async () => {
    const modern = variant(await runs.dateKeyed, 'date-gsi-modern');
    const index = gsi(modern, 'user_log/index/date-index');
    assert.ok(index.totals.partitions >= 2, 'it split as well');
    assert.equal(modern.totals.throttled, 0);
    assert.equal(modern.findings.some((f) => f.code === 'CLASSIC_DILUTION_AFTER_SPLIT'), false);
    assert.equal(finding(modern, 'TIME_KEYED_GSI').severity, 'warning');
  });
});

describe('examples/scenarios/delivery-lists.json (seed article 002)', () => {
  test('one item per delivery: the 450 KB campaign list fails, rewrites cost a list per send and throttle on the hot deliveries', async () => {
    const report = await runs.deliveries;
    const oneItem = variant(report, 'one-item-per-delivery');
    const size = finding(oneItem, 'ITEM_SIZE_NEAR_LIMIT');
    assert.equal(size.severity, 'error');
    assert.equal(size.figures.itemSizeFailures, 2, 'both campaign lists refused');
    assert.equal(oneItem.totals.errors['ValidationException'], 2);
    assert.ok(oneItem.totals.throttled > 1000, `throttled ${oneItem.totals.throttled}`);
    assert.equal(finding(oneItem, 'HOT_KEY_AT_PARTITION_CEILING').resource, 'deliveries');
    const send = oneItem.operations.find((operation) => operation.name === 'send: rewrite the list')!;
    assert.ok(send.writeUnits / send.accepted >= 9, `a send rewrites the 9 KB list: ${send.writeUnits / send.accepted} WCU`);
  });

  test('chunked lists, list plus targets, a table per delivery: no throttle, no item-size failure; capacity per delivery side by side', async () => {
    const report = await runs.deliveries;
    const oneItem = variant(report, 'one-item-per-delivery');
    const chunked = variant(report, 'chunked-lists');
    const targets = variant(report, 'list-plus-targets');
    const perTable = variant(report, 'table-per-delivery');
    for (const design of [chunked, targets, perTable]) {
      assert.equal(design.totals.throttled, 0, design.name);
      assert.equal(sumOf(design.operations.map((operation) => operation.itemSizeFailures)), 0, design.name);
      assert.deepEqual(design.findings, [], design.name);
      assert.ok(design.perUnit !== null && design.perUnit.name === 'delivery' && design.perUnit.count === 32, `${design.name}: 30 deliveries and 2 campaigns`);
    }
    assert.equal(oneItem.perUnit!.count, 30, 'the campaigns never started');
    assert.ok(chunked.perUnit!.writeUnits < 1100, `chunked: ${chunked.perUnit!.writeUnits} WCU per delivery`);
    assert.ok(oneItem.perUnit!.writeUnits > 5 * chunked.perUnit!.writeUnits, `one item: ${oneItem.perUnit!.writeUnits} WCU per delivery`);
    // Exactly once: each send's transaction deleted a target that was there (no cancelled condition).
    const send = targets.operations.find((operation) => operation.kind === 'TransactWriteItems')!;
    assert.equal(send.accepted, 30_000);
    assert.equal(targets.totals.errors['TransactionCanceledException'], undefined);
    assert.ok(targets.perUnit!.readUnits > 0, 'the chunks are read');
    const scan = perTable.operations.find((operation) => operation.name === "scan the campaign's table")!;
    assert.ok(scan.readUnits / scan.accepted > 200, `a Scan of 50,000 targets: ${scan.readUnits / scan.accepted} RCU`);
    assert.ok(scan.calls > scan.accepted, 'more than one page');
  });
});

describe('examples/scenarios/gsi-sharding.json (seed article 004, shortened to 30 s)', () => {
  test('a constant GSI key caps writes at one partition; K = 5 over 4 partitions still throttles; the recommended K = 70 does not', async () => {
    const report = await runs.sharding;
    assert.equal(recommendShards({ partitions: 4 }).recommendedShards, 70, 'the K the example names');
    const constant = variant(report, 'constant-key');
    assert.ok(constant.totals.throttled > 10_000);
    assert.equal(finding(constant, 'LOW_CARDINALITY_GSI_KEY').figures.topValueShare, 1);
    const five = variant(report, '5-shards');
    const seventy = variant(report, '70-shards');
    assert.ok(five.totals.throttled > 0, 'two of five shards share a partition');
    assert.ok(gsi(five, 'events/index/time-index').totals.hottestPartitionShare > 0.35);
    assert.equal(seventy.totals.throttled, 0);
    assert.ok(gsi(seventy, 'events/index/time-index').totals.hottestPartitionShare < 0.35);
  });

  test('the scatter-gather read: K queries and at least K × 0.5 RCU per read', async () => {
    const report = await runs.sharding;
    for (const [name, k] of [['5-shards', 5], ['70-shards', 70]] as const) {
      const scatter = finding(variant(report, name), 'SCATTER_GATHER_READ_COST');
      assert.equal(scatter.figures.shards, k);
      assert.equal(scatter.figures.queriesPerRead, k);
      assert.ok(Number(scatter.figures.readUnitsPerRead) >= k * 0.5, `${name}: ${scatter.figures.readUnitsPerRead} RCU per read`);
      assert.equal(scatter.figures.recommendedShardsForPartitions, 70);
    }
    const single = variant(report, 'constant-key').operations.find((operation) => operation.kind === 'Query')!;
    assert.equal(single.calls, single.accepted, 'one query per read with one key');
  });
});

describe('the examples’ HTML reports in headless Chromium', () => {
  const availability = browserAvailability();
  test('charts per variant and the findings by code; screenshots kept', { skip: availability === 'fail' || availability === false ? false : availability }, async () => {
    if (availability === 'fail') throw new Error(MISSING_BROWSER_MESSAGE);
    const expected: [string, Promise<SimulationReport>, Record<string, string[]>][] = [
      ['date-keyed-log', runs.dateKeyed, { 'date-gsi': ['TIME_KEYED_GSI', 'CLASSIC_DILUTION_AFTER_SPLIT'], 'date-suffix': [] }],
      ['delivery-lists', runs.deliveries, { 'one-item-per-delivery': ['HOT_KEY_AT_PARTITION_CEILING', 'ITEM_SIZE_NEAR_LIMIT'], 'chunked-lists': [] }],
      ['gsi-sharding', runs.sharding, { 'constant-key': ['LOW_CARDINALITY_GSI_KEY'], '70-shards': ['SCATTER_GATHER_READ_COST'] }],
    ];
    const browser = await launchChromium();
    try {
      for (const [name, run, codes] of expected) {
        const report = await run;
        const file = join(scratch, `${name}.html`);
        writeFileSync(file, renderHtmlReport(report, { scenariosDoc: 'docs/SCENARIOS.md' }));
        const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
        await page.goto(`file://${file}`);
        const seen = await page.evaluate(() =>
          [...document.querySelectorAll('section.variant')].map((section) => ({
            name: section.getAttribute('data-variant')!,
            charts: [...section.querySelectorAll('svg[data-chart]')].map((svg) => svg.getAttribute('data-chart')),
            paths: section.querySelectorAll('svg[data-chart="throughput"] path').length,
            findings: [...section.querySelectorAll('li.finding')].map((finding) => finding.getAttribute('data-code')),
            operations: section.querySelectorAll('table.operations tbody tr').length,
          })),
        );
        await page.screenshot({ path: screenshotPath(`scenario-${name}-report.png`), fullPage: true });
        await page.close();
        assert.equal(seen.length, report.variants.length, name);
        for (const section of seen) {
          const variantReport = variant(report, section.name);
          assert.deepEqual(section.charts, ['throughput', 'throttles', ...variantReport.resources.map(() => 'heatmap')], `${name}/${section.name}`);
          assert.equal(section.paths, 3);
          assert.deepEqual(section.findings, variantReport.findings.map((f) => f.code), `${name}/${section.name}`);
          assert.equal(section.operations, variantReport.operations.length);
        }
        for (const [variantName, want] of Object.entries(codes)) {
          const section = seen.find((candidate) => candidate.name === variantName)!;
          for (const code of want) assert.ok(section.findings.includes(code), `${name}/${variantName}: ${code}`);
          if (want.length === 0) assert.deepEqual(section.findings, [], `${name}/${variantName}`);
        }
      }
    } finally {
      await browser.close();
    }
  });
});

function sumOf(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
