// What the console's browser tests share: Debian's Chromium, headless with the flags the
// README gives, one page at a laptop's size. Under CI a missing browser is a failure, not a skip.
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install -y chromium)`);

/** describe's `skip` option: false, or why the tests are skipped. */
export const withoutChromium: false | string = haveChromium ? false : `no ${CHROMIUM}: apt-get update && apt-get install -y chromium`;

export async function openBrowser(): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.setDefaultTimeout(10_000);
  return { browser, page };
}
