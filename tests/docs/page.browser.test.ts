import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { CHROMIUM, hasChromium, offlineBrowser } from '../browser.ts';
import { createTestApp } from '../helpers.ts';

/** GET /docs in headless Chromium: Swagger UI renders from this process alone, every other host unreachable. */
const t = await createTestApp();

if (!hasChromium) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the headless /docs test`);

describe('GET /docs in headless Chromium', () => {
  const server = hasChromium ? Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch }) : undefined;
  afterAll(() => server?.stop(true));

  test.skipIf(!hasChromium)(
    'renders the CFDI endpoints with every other host unreachable',
    async () => {
      const origin = server!.url.origin;
      const { browser, context, outside } = await offlineBrowser(origin, { viewport: { width: 1280, height: 1000 } });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
        page.on('console', (msg) => msg.type() === 'error' && errors.push(`console: ${msg.text()}`));
        const requested: string[] = [];
        page.on('request', (req) => requested.push(req.url()));

        const res = await page.goto(`${origin}/docs`);
        expect(res?.status()).toBe(200);
        const issue = page.locator('.opblock-post:has(.opblock-summary-path[data-path="/api/v1/cfdis"])');
        await issue.waitFor({ timeout: 30_000 });
        expect(await issue.textContent()).toContain('Issue, seal and stamp a CFDI 4.0');
        await page.locator('.opblock-summary-path[data-path="/api/v1/cfdis/{uuid}/xml"]').waitFor();
        expect(await page.locator('.info .title').textContent()).toContain('CFDI 4.0 invoicing API');

        if (process.env.UPDATE_SCREENSHOTS === '1') {
          await page.locator('#operations-tag-CFDIs').evaluate((el) => el.scrollIntoView({ block: 'start' }));
          await page.screenshot({ path: join(import.meta.dir, '../../docs/api-reference.png') });
        }
        expect(outside).toEqual([]);
        expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
        expect(requested).toContain(`${origin}/api/v1/openapi.json`);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
