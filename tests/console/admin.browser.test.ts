import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM, hasChromium, offlineBrowser, pageErrors, signInConsole, fitsTheWidth } from '../browser.ts';
import { createTestApp, issuer } from '../helpers.ts';

/**
 * Issue 40's acceptance, the administration part, in headless Chromium: replay a failed webhook delivery and see it
 * succeed; upload a CSD; create an API key (shown once) and revoke it (it no longer authenticates the API).
 */
const required = process.env.REQUIRE_CHROMIUM === '1';
if (!hasChromium && !required) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the console's administration browser test`);

// Webhooks may target the loopback receiver; a failed delivery is retried only a minute later (the replay comes first).
const t = await createTestApp({ webhookAllowPrivate: true, webhookRetrySchedule: Array(20).fill(60) });
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req, srv) => t.app.fetch(req, srv) });
const answers: number[] = [];
const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('receiver says no', { status: answers.shift() ?? 200 }) });
afterAll(() => {
  server.stop(true);
  receiver.stop(true);
});
const origin = server.url.origin;
const CSD = join(import.meta.dir, '..', 'fixtures', 'csd', 'EKU9003173C9_CSD');

const signIn = (page: Page, email: string, password: string) => signInConsole(page, origin, email, password);

describe('the console in headless Chromium: administration', () => {
  test.skipIf(!hasChromium && !required)(
    'replay a failed webhook delivery; upload a CSD; create an API key and revoke it',
    async () => {
      if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is not installed (apt-get install chromium)`);
      // A new issuer without a CSD yet (its first one is uploaded here).
      const a = await issuer(t, { keys: ['test'] });
      const { browser, context, outside } = await offlineBrowser(origin, { locale: 'es-MX' });
      try {
        const page = await context.newPage();
        const errors = pageErrors(page);
        page.on('dialog', (dialog) => dialog.accept()); // the confirmations of data-confirm forms
        await signIn(page, a.email, a.password);

        // A webhook to a receiver that answers 500 first: created from the console, its secret shown once.
        const url = `http://127.0.0.1:${receiver.port}/hook`;
        await Promise.all([page.waitForURL(`${origin}/console/webhooks`), page.click('nav a[href="/console/webhooks"]')]);
        await page.fill('#wh-url', url);
        await page.fill('#wh-events', 'cfdi.timbrado');
        await Promise.all([page.waitForURL(`${origin}/console/webhooks`), page.click('#create-webhook')]);
        expect(await page.locator('#webhook-secret').textContent()).toMatch(/^whsec_/);
        const [hook] = (await t.call('GET', '/webhooks', { token: a.key })).json.data as { id: string }[];
        await Promise.all([page.waitForURL(`${origin}/console/webhooks/${hook!.id}`), page.click(`a[href="/console/webhooks/${hook!.id}"]`)]);
        answers.push(500);
        await Promise.all([page.waitForURL(`${origin}/console/webhooks/${hook!.id}`), page.click('#test-webhook')]);
        const failed = page.locator('article.delivery[data-state="pendiente"]');
        expect(await failed.count()).toBe(1);
        expect(await failed.locator('.attempts').textContent()).toContain('500');
        expect(await failed.locator('.attempts').textContent()).toContain('receiver says no');
        // Replayed: the receiver answers 200 now, the delivery is delivered, its second attempt listed.
        const delivery = (await failed.getAttribute('data-id'))!;
        await Promise.all([page.waitForURL(`${origin}/console/webhooks/${hook!.id}`), page.click(`#replay-${delivery}`)]);
        const delivered = page.locator(`article.delivery[data-id="${delivery}"]`);
        expect(await delivered.getAttribute('data-state')).toBe('entregado');
        expect(await delivered.locator('.state').textContent()).toBe('Entregado');
        expect(await delivered.locator('.attempts tbody tr').count()).toBe(2);
        expect(await page.locator(`#replay-${delivery}`).count()).toBe(0);
        await page.setViewportSize({ width: 390, height: 844 });
        expect(await fitsTheWidth(page)).toBe(true);
        await page.setViewportSize({ width: 1280, height: 720 });

        // A CSD: the .cer, the .key and its password, uploaded as a form with files; listed active with its expiry.
        await Promise.all([page.waitForURL(`${origin}/console/csds`), page.click('nav a[href="/console/csds"]')]);
        expect(await page.locator('#empty').count()).toBe(1);
        await page.setInputFiles('#csd-cer', join(CSD, 'EKU9003173C9.cer'));
        await page.setInputFiles('#csd-key', join(CSD, 'EKU9003173C9.key'));
        await page.fill('#csd-password', 'not-the-password');
        await Promise.all([page.waitForURL(`${origin}/console/csds`), page.click('#upload-csd')]);
        expect(await page.locator('#form-error').textContent()).toContain('password');
        await page.setInputFiles('#csd-cer', join(CSD, 'EKU9003173C9.cer'));
        await page.setInputFiles('#csd-key', join(CSD, 'EKU9003173C9.key'));
        await page.fill('#csd-password', readFileSync(join(CSD, 'password.txt'), 'utf8').trim());
        await Promise.all([page.waitForURL(`${origin}/console/csds`), page.click('#upload-csd')]);
        const [csd] = (await t.call('GET', '/csds', { token: a.key })).json.data as { id: string; status: string; valid_to: string }[];
        expect(csd!.status).toBe('active');
        const row = page.locator(`#csds tr[data-id="${csd!.id}"]`);
        expect(await row.locator('.csd-status').textContent()).toBe('Activo');
        expect(await row.textContent()).toContain(csd!.valid_to);

        // An API key: shown once on the answer page; it works; the list never shows it; revoked, it no longer works.
        await Promise.all([page.waitForURL(`${origin}/console/api-keys`), page.click('nav a[href="/console/api-keys"]')]);
        await page.fill('#ak-name', 'Console key');
        await Promise.all([page.waitForURL(`${origin}/console/api-keys`), page.click('#create-api-key')]);
        const key = await page.inputValue('#api-key-secret');
        expect(key).toMatch(/^sk_test_/);
        expect((await t.call('GET', '/cfdis', { token: key })).status).toBe(200);
        await page.goto(`${origin}/console/api-keys`);
        expect(await page.content()).not.toContain(key);
        const made = (await t.call('GET', '/api-keys', { token: a.token })).json.data as { id: string; name: string }[];
        const id = made.find((k) => k.name === 'Console key')!.id;
        await Promise.all([page.waitForURL(`${origin}/console/api-keys`), page.click(`#revoke-${id}`)]);
        expect(await page.locator(`tr[data-id="${id}"]`).count()).toBe(0);
        expect((await t.call('GET', '/cfdis', { token: key })).status).toBe(401);
        await page.setViewportSize({ width: 390, height: 844 });
        expect(await fitsTheWidth(page)).toBe(true);

        expect(outside).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
