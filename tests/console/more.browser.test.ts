import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, hasChromium, offlineBrowser, pageErrors, signInConsole, fitsTheWidth } from '../browser.ts';
import { createTestApp, ICV, ingreso, issuer, READY } from '../helpers.ts';

/**
 * The console's received inbox and stats in headless Chromium (issue 40, build item 4): upload a received XML from
 * the file picker and find it in the inbox; the stats page draws its SVG bars (the stylesheet's colour, no inline style).
 */
const required = process.env.REQUIRE_CHROMIUM === '1';
if (!hasChromium && !required) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the console's browser test`);

const t = await createTestApp();
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req, srv) => t.app.fetch(req, srv) });
afterAll(() => server.stop(true));
const origin = server.url.origin;

describe('the received inbox and the stats in headless Chromium', () => {
  test.skipIf(!hasChromium && !required)(
    'upload a received XML and see it in the inbox and its checks; the stats chart is drawn',
    async () => {
      if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is not installed (apt-get install chromium)`);
      const emisor = await issuer(t, READY);
      const receiver = await issuer(t, {
        plan: 'enterprise',
        requestsPerMinute: 1_000_000,
        keys: ['test'],
        tenant: { rfc: ICV.rfc, nombre: ICV.nombre, regimen_fiscal: '601', codigo_postal: '33826' },
      });
      const issued = await t.call('POST', '/cfdis', { token: emisor.key, body: ingreso() });
      expect(issued.status).toBe(201);
      const xml = await (await t.app.request(`/api/v1/cfdis/${issued.json.id}/xml`, { headers: { authorization: `Bearer ${emisor.key}` } })).text();
      const dir = await mkdtemp(join(tmpdir(), 'console-received-'));
      const file = join(dir, 'proveedor.xml');
      await writeFile(file, xml);

      const { browser, context, outside } = await offlineBrowser(origin, { locale: 'es-MX' });
      try {
        const page = await context.newPage();
        const errors = pageErrors(page);
        const signIn = (email: string, password: string) => signInConsole(page, origin, email, password);

        // The receiver: the inbox from the navigation, empty; upload from the file picker.
        await signIn(receiver.email, receiver.password);
        await Promise.all([page.waitForURL(`${origin}/console/received`), page.click('nav a[href="/console/received"]')]);
        expect(await page.locator('#empty').count()).toBe(1);
        await page.setInputFiles('#f-file', file);
        await Promise.all([page.waitForURL(`${origin}/console/received/upload`), page.click('#upload-button')]);
        expect(await page.locator('#outcomes tbody tr').count()).toBe(1);
        expect(await page.locator('#outcomes').textContent()).toContain('proveedor.xml');
        expect(await page.locator('#outcomes .r-created').count()).toBe(1);
        await Promise.all([page.waitForURL(`${origin}/console/received`), page.click('#to-inbox')]);
        const rows = page.locator('#received tbody tr');
        expect(await rows.count()).toBe(1);
        expect(await rows.first().textContent()).toContain(issued.json.uuid);
        // On a phone: the inbox fits the width.
        await page.setViewportSize({ width: 390, height: 844 });
        expect(await fitsTheWidth(page)).toBe(true);
        await page.setViewportSize({ width: 1280, height: 720 });
        await Promise.all([page.waitForURL(/\/console\/received\/rcv_/), rows.first().locator('a').click()]);
        expect(await page.locator('#validation').textContent()).toBe('Válida');
        expect(await page.locator('#checks td.bad').count()).toBe(0);
        expect(await page.locator('#checks tbody tr').count()).toBeGreaterThan(5);
        expect(await page.locator('#sat-status').textContent()).toBe('—');
        await page.click('#refresh');
        await page.locator('#sat-status', { hasText: 'Vigente' }).waitFor();
        await Promise.all([page.waitForURL(/\/console\/login/), page.click('#sign-out')]);

        // The emisor's stats: one bar per month, drawn with the stylesheet's colour, its number in the table.
        await signIn(emisor.email, emisor.password);
        await page.goto(`${origin}/console/stats`);
        const bars = page.locator('#chart rect.bar');
        expect(await bars.count()).toBe(1);
        expect(await bars.first().evaluate((el) => getComputedStyle(el).fill)).toBe('rgb(31, 95, 196)');
        const box = await bars.first().boundingBox();
        expect(box!.height).toBeGreaterThan(50);
        expect(await page.locator('#months td.cantidad').first().textContent()).toBe('1');

        expect(outside).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
