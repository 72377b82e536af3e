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
  const launch = () => chromium.launch({ executablePath: CHROMIUM, args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1', '--no-proxy-server'] });
  // A browser that fails to start is the machine's, not the page's: said, and tried once more.
  const browser = await launch().catch((error) => {
    console.warn(`chromium did not start (${error}); trying once more`);
    return launch();
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

/**
 * The page's script errors, as they happen: uncaught ones and console errors, but for the 4xx answers Chromium logs
 * when a page shows an API refusal (expected). A test asserts the list stays empty.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) errors.push(`console: ${msg.text()}`);
  });
  return errors;
}

/** Signs in to the console at `origin` through its form, as a person does, and waits for the invoice list. */
export async function signInConsole(page: Page, origin: string, email: string, password: string) {
  await page.goto(`${origin}/console`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(`${origin}/console/invoices`), page.click('#sign-in')]);
}

/** The page fits its viewport's width: nothing scrolls sideways (a phone's 390 px, for the console and the portal). */
export const fitsTheWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
