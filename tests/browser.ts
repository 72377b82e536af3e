import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';

/** Debian's chromium (apt-get install chromium), driven by playwright-core in the browser tests. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/**
 * Headless Chromium that reaches only `origin`: no DNS for any other host, and every request elsewhere aborted and
 * listed in `outside` (a test asserts it stays empty). Close `browser` when done.
 */
export async function offlineBrowser(origin: string, options: BrowserContextOptions = {}) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1', '--no-proxy-server'],
  });
  const context = await browser.newContext(options);
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    outside.push(url);
    return route.abort('internetdisconnected');
  });
  return { browser, context, outside };
}

/**
 * A screenshot of the page for the README (docs/console/<name>.png) when SCREENSHOTS=1, else to a temporary file,
 * so every run takes it (the page renders) and only a deliberate one changes the committed pictures.
 */
export async function screenshot(page: Page, name: string, { fullPage = false } = {}) {
  const path =
    process.env.SCREENSHOTS === '1'
      ? new URL(`../docs/console/${name}.png`, import.meta.url).pathname
      : join(mkdtempSync(join(tmpdir(), 'console-shot-')), `${name}.png`);
  if (!fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  const png = await page.screenshot({ path, fullPage });
  if (png.subarray(1, 4).toString() !== 'PNG') throw new Error(`screenshot ${name}: not a PNG`);
  return path;
}
