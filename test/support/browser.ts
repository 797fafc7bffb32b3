/**
 * Headless Chromium for the dashboard tests: Debian's /usr/bin/chromium (installed by
 * `npm run setup:browser`) driven by playwright-core, which downloads no browser of its own.
 *
 * Without /usr/bin/chromium the browser tests fail, telling to run `npm run setup:browser`, unless
 * DYNATWIN_SKIP_BROWSER=1 says to skip them.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env['DYNATWIN_CHROMIUM'] ?? '/usr/bin/chromium';

/** Where the tests' screenshots go (gitignored). */
export const SCREENSHOT_DIRECTORY = new URL('../../../test-results/dashboard/', import.meta.url);

/**
 * `false` when Chromium is there; a skip reason when it is missing and DYNATWIN_SKIP_BROWSER=1;
 * otherwise `'fail'`: the caller fails with `MISSING_BROWSER_MESSAGE`.
 */
export function browserAvailability(): false | string | 'fail' {
  if (existsSync(CHROMIUM_PATH)) return false;
  if (process.env['DYNATWIN_SKIP_BROWSER'] === '1') return `skipped: ${CHROMIUM_PATH} is missing and DYNATWIN_SKIP_BROWSER=1 (run \`npm run setup:browser\` to run it)`;
  return 'fail';
}

export const MISSING_BROWSER_MESSAGE = `${CHROMIUM_PATH} is missing: run \`npm run setup:browser\` (installs Debian's chromium), or set DYNATWIN_SKIP_BROWSER=1 to skip the browser tests`;

/** Flags for this machine: no sandbox as root, no GPU, and no background connections (the network is closed). */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** A headless Chromium with a fresh profile (playwright makes a new user data directory per launch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** The path of a screenshot file, its directory created. */
export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true });
  return new URL(name, SCREENSHOT_DIRECTORY).pathname;
}
