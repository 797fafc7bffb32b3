/**
 * `dynatwin simulate` (issue 18): the seed-000 example run through the library entry point and
 * its figures asserted; its HTML report opened in headless Chromium (charts, heat maps, findings;
 * screenshot in test-results/dashboard/scenario-status-gsi-report.png); the CLI on good and bad
 * scenario files (one line naming the field, exit 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { renderHtmlReport } from '../src/scenarios/report-html.js';
import type { SimulationReport } from '../src/scenarios/report.js';
import { simulate } from '../src/scenarios/simulate.js';
import { parseScenario, ScenarioError } from '../src/scenarios/schema.js';
import { browserAvailability, launchChromium, MISSING_BROWSER_MESSAGE, screenshotPath } from './support/browser.js';
import { runCli } from './support/process.js';

/** The browser globals the page function below uses (the project compiles without the DOM library). */
interface PageElement {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  getBoundingClientRect(): { readonly left: number; readonly top: number; readonly width: number; readonly height: number };
  readonly textContent: string | null;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement> };

/** Where the report's footer sends its reader (the CLI passes package-files.ts's shippedPath). */
const REPORT_PATHS = { scenariosDoc: 'docs/SCENARIOS.md' };
/** A report's chart is drawn 560 px wide (report-html.ts), whatever the page's width. */
const CHART_WIDTH_MAX_PX = 560;

const EXAMPLE = fileURLToPath(new URL('../../examples/scenarios/status-gsi.json', import.meta.url));

function example(durationSeconds: number): Record<string, unknown> {
  const document = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { workload: { phases: { durationSeconds: number }[] } };
  document.workload.phases[0]!.durationSeconds = durationSeconds;
  return document as unknown as Record<string, unknown>;
}

const scratch = mkdtempSync(join(tmpdir(), 'dynatwin-scenarios-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The 140 s run of the example, simulated once for the figures and the HTML report. */
const progress: number[] = [];
let statusGsiRun: Promise<SimulationReport> | undefined;
const statusGsiReport = (): Promise<SimulationReport> =>
  (statusGsiRun ??= simulate(example(140), { onProgress: (p) => progress.push(Math.min(...p.secondsByVariant)) }));

describe('simulate: seed article 000 (examples/scenarios/status-gsi.json, shortened to 140 s)', () => {
  test('the status GSI first throttles near 80 s, then accepts about 1,000 items/s; the sparse index never throttles', async () => {
    const report = await statusGsiReport();
    assert.equal(progress.at(-1), 140, 'progress reaches the end');
    const [status, sparse] = report.variants;
    assert.equal(status!.name, 'status-gsi');
    assert.equal(status!.totals.offered, 280_000, '2,000 items/s for 140 s');
    const first = status!.totals.firstThrottleSeconds!;
    assert.ok(first >= 76 && first <= 84, `first throttle at ${first} s`);
    // The minute after the first throttle: the GSI partition's 1,000 WCU/s sets the pace.
    const settled = status!.series.accepted.slice(90, 140);
    const rate = settled.reduce((a, b) => a + b, 0) / settled.length;
    assert.ok(rate >= 950 && rate <= 1050, `accepted ${rate} items/s once throttled`);
    const gsi = status!.resources.find((resource) => resource.name === 'test/index/gsi-status')!;
    assert.ok(gsi.totals.throttleEvents > 0);
    assert.ok(gsi.totals.hottestPartitionShare > 0.99, 'every GSI write lands on one partition');
    const finding = status!.findings.find((f) => f.code === 'LOW_CARDINALITY_GSI_KEY');
    assert.ok(finding, 'the low-cardinality GSI key is found');
    assert.equal(finding.resource, 'test/index/gsi-status');
    assert.equal(finding.figures.topValue, 'UN_USED');
    assert.equal(finding.figures.topValueShare, 1);
    assert.ok(Math.abs(Number(finding.figures.ceilingItemsPerSecond) - 1000) < 1, 'ceiling: 1,000 items/s');
    assert.equal(finding.figures.recommendedShards, 70, "the K of dynatwin shards --partitions 4 for the GSI's 4 partitions");
    assert.match(finding.fixes[1]!, /over the GSI's 4 partitions, K = 70 .*\(dynatwin shards --partitions 4\); at the peak of 2,000 WCU\/s that is at most 750 of a partition's 1000 WCU\/s/);
    assert.match(finding.fixes[0]!, /[Ss]parse/);

    assert.equal(sparse!.name, 'sparse-index');
    assert.equal(sparse!.totals.throttled, 0);
    assert.equal(sparse!.totals.accepted, 280_000);
    assert.equal(sparse!.totals.firstThrottleSeconds, null);
    assert.deepEqual(sparse!.findings, []);
    const sparseGsi = sparse!.resources.find((resource) => resource.name === 'test/index/gsi-un-used-id')!;
    assert.ok(sparseGsi.totals.hottestPartitionShare < 0.35, `sparse GSI spread: ${sparseGsi.totals.hottestPartitionShare}`);
  });

  const availability = browserAvailability();
  test('the HTML report, opened in headless Chromium, shows both variants side by side: charts, heat maps, top keys, findings with fixes', { skip: availability === 'fail' || availability === false ? false : availability }, async () => {
    if (availability === 'fail') throw new Error(MISSING_BROWSER_MESSAGE);
    const file = join(scratch, 'status-gsi-report.html');
    const html = renderHtmlReport(await statusGsiReport(), REPORT_PATHS);
    writeFileSync(file, html);
    assert.doesNotMatch(html, /\b(?:src|href)\s*=|https?:\/\/|<script|@import|url\(/i, 'self-contained: nothing to fetch');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const fetched: string[] = [];
      page.on('request', (request) => {
        if (request.url() !== `file://${file}`) fetched.push(request.url());
      });
      await page.goto(`file://${file}`);
      const seen = await page.evaluate(() => {
        const variants = [...document.querySelectorAll('section.variant')].map((section) => ({
          name: section.getAttribute('data-variant'),
          charts: [...section.querySelectorAll('svg[data-chart]')].map((svg) => ({
            kind: svg.getAttribute('data-chart'),
            points: Number(svg.getAttribute('data-points') ?? 0),
            paths: svg.querySelectorAll('path').length,
            resource: svg.getAttribute('data-resource'),
            cells: svg.querySelectorAll('rect').length,
            partitions: Number(svg.getAttribute('data-partitions') ?? 0),
            hottestShare: Number(svg.getAttribute('data-hottest-share') ?? 0),
            throttledCells: Number(svg.getAttribute('data-throttled-cells') ?? 0),
            width: svg.getBoundingClientRect().width,
          })),
          findings: [...section.querySelectorAll('li.finding')].map((finding) => ({
            code: finding.getAttribute('data-code'),
            resource: finding.getAttribute('data-resource'),
            fixes: [...finding.querySelectorAll('li.fix')].map((fix) => fix.textContent ?? ''),
          })),
          topKeys: [...section.querySelectorAll('table.top-keys td code')].map((code) => code.textContent),
          left: section.getBoundingClientRect().left,
          top: section.getBoundingClientRect().top,
        }));
        return { variants, comparisonRows: document.querySelectorAll('table.comparison tbody tr').length };
      });
      await page.screenshot({ path: screenshotPath('scenario-status-gsi-report.png'), fullPage: true });
      await page.screenshot({ path: screenshotPath('scenario-status-gsi-report-1280.png') });
      assert.deepEqual(fetched, [], 'the page fetches nothing');
      assert.equal(seen.comparisonRows, 2);
      const [status, sparse] = seen.variants;
      assert.equal(status!.name, 'status-gsi');
      assert.equal(sparse!.name, 'sparse-index');
      assert.equal(status!.top, sparse!.top, 'the variants stand side by side');
      assert.ok(sparse!.left > status!.left + 300, `side by side: ${status!.left} and ${sparse!.left}`);
      for (const variant of [status!, sparse!]) {
        const kinds = variant.charts.map((chart) => chart.kind);
        assert.deepEqual(kinds, ['throughput', 'throttles', 'heatmap', 'heatmap'], `${variant.name}: ${kinds.join(', ')}`);
        for (const chart of variant.charts) assert.ok(chart.width > 300, `${variant.name} ${chart.kind} drawn ${chart.width} px wide`);
        const throughput = variant.charts[0]!;
        assert.equal(throughput.points, 140, 'a point per simulated second');
        assert.equal(throughput.paths, 3, 'offered, accepted, throttled');
        for (const heat of variant.charts.slice(2)) {
          assert.equal(heat.partitions, 4, `${heat.resource}: 4 partitions`);
          assert.ok(heat.cells >= 140 * 4, `${heat.resource}: ${heat.cells} cells`);
        }
      }
      const statusGsiHeat = status!.charts.find((chart) => chart.resource === 'test/index/gsi-status')!;
      assert.ok(statusGsiHeat.hottestShare >= 0.99, `one GSI partition at its allocation: ${statusGsiHeat.hottestShare}`);
      assert.ok(statusGsiHeat.throttledCells >= 50, `throttled cells from 80 s on: ${statusGsiHeat.throttledCells}`);
      assert.ok(sparse!.charts.every((chart) => chart.throttledCells === 0), 'the sparse index never throttles');
      assert.deepEqual(status!.topKeys, ['UN_USED'], 'the GSI key: one value');
      assert.deepEqual(sparse!.topKeys, [], 'per-item keys: no top value');
      assert.equal(status!.findings.length, 1);
      assert.equal(status!.findings[0]!.code, 'LOW_CARDINALITY_GSI_KEY');
      assert.equal(status!.findings[0]!.resource, 'test/index/gsi-status');
      assert.match(status!.findings[0]!.fixes[0]!, /^Sparse index keyed per item/);
      assert.match(status!.findings[0]!.fixes[1]!, /K = 70/);
      assert.deepEqual(sparse!.findings, []);
    } finally {
      await browser.close();
    }
  });

  test('a single-variant report draws its charts at their own size, not stretched to a 1280 px page', { skip: availability === 'fail' || availability === false ? false : availability }, async () => {
    if (availability === 'fail') throw new Error(MISSING_BROWSER_MESSAGE);
    const both = await statusGsiReport();
    const file = join(scratch, 'status-gsi-single.html');
    writeFileSync(file, renderHtmlReport({ ...both, variants: both.variants.slice(0, 1) }, REPORT_PATHS));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`file://${file}`);
      const charts = await page.evaluate(() =>
        [...document.querySelectorAll('svg[data-chart]')].map((svg) => ({
          kind: svg.getAttribute('data-chart'),
          width: svg.getBoundingClientRect().width,
          viewBoxWidth: Number((svg.getAttribute('viewBox') ?? '').split(' ')[2]),
          // An axis label's drawn height: the SVG's text scales with the chart.
          labelHeight: [...svg.querySelectorAll('text')][0]!.getBoundingClientRect().height,
        })),
      );
      await page.screenshot({ path: screenshotPath('scenario-single-variant-report-1280.png') });
      assert.deepEqual(charts.map((chart) => chart.kind), ['throughput', 'throttles', 'heatmap', 'heatmap']);
      for (const chart of charts) {
        // Before: 1,198 px wide with 26 px labels, the page's width.
        assert.ok(chart.width <= CHART_WIDTH_MAX_PX, `${chart.kind} drawn ${chart.width} px wide, at most ${CHART_WIDTH_MAX_PX}`);
        assert.ok(chart.width >= 0.9 * chart.viewBoxWidth, `${chart.kind} drawn ${chart.width} px wide, at its own ${chart.viewBoxWidth}`);
        assert.ok(chart.labelHeight <= 14, `${chart.kind}: axis labels ${chart.labelHeight} px high`);
      }
    } finally {
      await browser.close();
    }
  });

  test("time axes read in one unit and no label is cut at a chart's edge ('10 mi' ended a 600 s run's axes)", { skip: availability === 'fail' || availability === false ? false : availability }, async () => {
    if (availability === 'fail') throw new Error(MISSING_BROWSER_MESSAGE);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
      // 140 s (items), then 600 s and 7,500 s (past the two hours from which the axis is in hours) in flow, one variant each.
      const runs: [number, string[]][] = [
        [140, ['0 s', '25 s', '50 s', '75 s', '100 s', '125 s']],
        [600, ['0 min', '2 min', '4 min', '6 min', '8 min', '10 min']],
        [7_500, ['0 h', '1 h', '2 h']],
      ];
      for (const [seconds, expected] of runs) {
        const scenario = example(seconds);
        scenario.variants = (scenario.variants as unknown[]).slice(0, 1);
        const report = seconds === 140 ? await statusGsiReport() : await simulate(scenario, { fidelity: 'flow' });
        const file = join(scratch, `status-gsi-${seconds}s.html`);
        writeFileSync(file, renderHtmlReport(report, REPORT_PATHS));
        await page.goto(`file://${file}`);
        const axes = await page.evaluate(() =>
          [...document.querySelectorAll('svg[data-chart]')].map((svg) => {
            const box = svg.getBoundingClientRect();
            const texts = [...svg.querySelectorAll('text')];
            return {
              kind: svg.getAttribute('data-chart'),
              times: [...svg.querySelectorAll('text.time')].map((label) => label.textContent),
              cut: texts.filter((label) => label.getBoundingClientRect().left < box.left - 0.5 || label.getBoundingClientRect().left + label.getBoundingClientRect().width > box.left + box.width + 0.5).map((label) => label.textContent),
            };
          }),
        );
        if (seconds === 600) await page.screenshot({ path: screenshotPath('scenario-600s-report-800.png'), fullPage: true });
        for (const axis of axes) {
          assert.deepEqual(axis.cut, [], `${seconds} s, ${axis.kind}: labels past the chart's edge`);
          assert.deepEqual(axis.times, expected, `${seconds} s, ${axis.kind}: time labels`);
        }
      }
    } finally {
      await browser.close();
    }
  });

  test('SDK retries re-send UnprocessedItems with backoff: more requests, and items given up only after the attempts', async () => {
    const document = example(100);
    document.client = { retries: 'sdk', maxAttempts: 3 };
    document.variants = [(document.variants as unknown[])[0]];
    const [variant] = (await simulate(document)).variants;
    const totals = variant!.totals;
    assert.ok(totals.requests > 4000, `retries add requests: ${totals.requests}`);
    assert.ok(totals.throttled > totals.failed, 'some throttled items were accepted on a retry');
    assert.equal(totals.offered, totals.accepted + totals.failed + totals.pendingAtEnd);
  });
});

describe('simulate: a hot key', () => {
  test('a zipf-hot key holding one table partition at its ceiling is named', async () => {
    const report = await simulate({
      name: 'hot-key',
      client: { retries: 'none' },
      variants: [
        {
          name: 'counters',
          tables: [
            {
              TableName: 'counters',
              AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
              KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
              BillingMode: 'PAY_PER_REQUEST',
            },
          ],
        },
      ],
      workload: {
        phases: [
          {
            durationSeconds: 20,
            operations: [
              {
                operation: 'UpdateItem',
                table: 'counters',
                requestsPerSecond: 1500,
                key: { pk: { choice: { values: ['page#home', 'page#about'], weights: [95, 5] } } },
                updateExpression: 'ADD hits :one',
                values: { ':one': { constant: 1 } },
              },
            ],
          },
        ],
      },
    });
    const [variant] = report.variants;
    assert.ok(variant!.totals.throttled > 0);
    const finding = variant!.findings.find((f) => f.code === 'HOT_KEY_AT_PARTITION_CEILING');
    assert.ok(finding, JSON.stringify(variant!.findings));
    assert.equal(finding.figures.key, 'page#home');
    assert.equal(finding.resource, 'counters');
  });
});

describe('dynatwin simulate (CLI)', () => {
  test('prints the summary, writes --json with per-second series and --report as HTML', async () => {
    const file = join(scratch, 'short.json');
    writeFileSync(file, JSON.stringify(example(5)));
    const out = join(scratch, 'out.json');
    const page = join(scratch, 'out.html');
    const outcome = await runCli(['simulate', file, '--json', out, '--report', page, '--quiet'], { timeoutMs: 180_000 });
    assert.equal(outcome.status, 0, outcome.stderr);
    const html = readFileSync(page, 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.equal(html.match(/<section class="variant"/g)?.length, 2);
    assert.match(outcome.stdout, /Variant status-gsi/);
    assert.match(outcome.stdout, /Variant sparse-index/);
    const json = JSON.parse(readFileSync(out, 'utf8')) as { variants: { totals: { offered: number }; series: { offered: number[] }; resources: { name: string; series: { consumedWriteUnits: number[] } }[] }[] };
    assert.equal(json.variants.length, 2);
    assert.equal(json.variants[0]!.totals.offered, 10_000);
    assert.equal(json.variants[0]!.series.offered.length, 5);
    assert.deepEqual(json.variants[0]!.series.offered, [2000, 2000, 2000, 2000, 2000]);
    assert.equal(json.variants[0]!.resources[1]!.name, 'test/index/gsi-status');
    assert.equal(json.variants[0]!.resources[1]!.series.consumedWriteUnits.length, 5);
  });

  const bad: [string, (document: Record<string, unknown>) => void, RegExp][] = [
    ['an unknown operation', (d) => (phaseOperation(d).operation = 'PutItems'), /^workload\.phases\[0\]\.operations\[0\]\.operation: must be one of PutItem, /],
    ['a bad generator', (d) => ((phaseOperation(d).item as Record<string, unknown>).id = { uuidv7: {} }), /^workload\.phases\[0\]\.operations\[0\]\.item\.id: 'uuidv7' is not a generator/],
    ['a negative rate', (d) => (phaseOperation(d).itemsPerSecond = -5), /^workload\.phases\[0\]\.operations\[0\]\.itemsPerSecond: must not be negative/],
    ['a table missing from a variant', (d) => (phaseOperation(d).table = 'orders'), /^workload\.phases\[0\]\.operations\[0\]\.table: names table 'orders', which variant 'status-gsi' does not create/],
    ['a bad zipf option', (d) => ((phaseOperation(d).item as Record<string, unknown>).id = { zipf: { n: 0 } }), /item\.id\.zipf\.n: must be a whole number from 1/],
  ];
  for (const [what, spoil, message] of bad) {
    test(`${what}: one line naming the field, exit code 2`, async () => {
      const document = example(5);
      spoil(document);
      assert.throws(() => parseScenario(document), (error: unknown) => error instanceof ScenarioError && message.test(error.message));
      const file = join(scratch, 'bad.json');
      writeFileSync(file, JSON.stringify(document));
      const outcome = await runCli(['simulate', file], { timeoutMs: 120_000 });
      assert.equal(outcome.status, 2);
      assert.equal(outcome.stdout, '');
      const lines = outcome.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, outcome.stderr);
      assert.ok(lines[0]!.startsWith(`dynatwin simulate: ${file}: `), lines[0]);
      assert.match(lines[0]!.slice(`dynatwin simulate: ${file}: `.length), message);
    });
  }

  test('a table definition CreateTable refuses names the variant table', async () => {
    const document = example(5);
    ((document.variants as Record<string, unknown>[])[1]!.tables as Record<string, unknown>[])[0]!.BillingMode = 'FREE';
    const file = join(scratch, 'bad-table.json');
    writeFileSync(file, JSON.stringify(document));
    const outcome = await runCli(['simulate', file], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 2);
    assert.match(outcome.stderr, /^dynatwin simulate: .*: variants\[1\]\.tables\[0\]: CreateTable refused it: ValidationException: /);
    assert.equal(outcome.stderr.trimEnd().split('\n').length, 1);
  });

  test('not JSON, or no file: one line, exit code 2', async () => {
    const file = join(scratch, 'not.json');
    writeFileSync(file, '{ nope');
    const outcome = await runCli(['simulate', file], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 2);
    assert.match(outcome.stderr, /not valid JSON/);
    const missing = await runCli(['simulate', join(scratch, 'missing.json')], { timeoutMs: 120_000 });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read it: ENOENT/);
  });
});

function phaseOperation(document: Record<string, unknown>): Record<string, unknown> {
  return (document.workload as { phases: { operations: Record<string, unknown>[] }[] }).phases[0]!.operations[0]!;
}
