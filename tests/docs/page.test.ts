import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { CHROMIUM, hasChromium, offlineBrowser } from '../browser.ts';
import { createTestApp } from '../helpers.ts';

/**
 * GET /docs: the API reference page. Served whole by this process (no CDN), so it must render with the network off:
 * checked in process (only same-origin assets, right types) and in headless Chromium with every other host blocked.
 */
const t = await createTestApp();

/** Every src/href of the page that is not a data: URL. */
const references = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'));

describe('GET /docs', () => {
  test('is an HTML page that references only same-origin assets, each served with its content type', async () => {
    const res = await t.app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(?:src|href)="\/\//); // protocol-relative
    const refs = references(html);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };
    for (const ref of refs) {
      expect(ref).toStartWith('/docs/assets/');
      const asset = await t.app.request(ref);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain(types[ref.slice(ref.lastIndexOf('.'))]!);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect((await asset.text()).length).toBeGreaterThan(10);
    }
  });

  test('an unknown asset is the usual 404 envelope', async () => {
    for (const path of ['/docs/assets/nope.js', '/docs/assets/constructor', '/docs/assets/../../package.json']) {
      const res = await t.app.request(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('HTTP_404');
    }
  });

  test('needs no credential and is rate-limited per address, like the OpenAPI document', async () => {
    const limited = await createTestApp({ anonymousRateLimit: 2 });
    expect((await limited.app.request('/docs')).status).toBe(200);
    expect((await limited.app.request('/docs')).status).toBe(200);
    const third = await limited.app.request('/docs');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBeTruthy();
  });
});

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
