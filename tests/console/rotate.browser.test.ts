import { afterAll, describe, expect, test } from 'bun:test';
import { CHROMIUM, hasChromium, offlineBrowser, pageErrors, signInConsole, fitsTheWidth } from '../browser.ts';
import { createTestApp, issuer } from '../helpers.ts';

/**
 * Issue 40, a webhook's secret rotation in headless Chromium: the form on the webhook's page, used by keyboard on a
 * 390 px wide screen, shows the new secret once; the API then signs with it.
 */
const required = process.env.REQUIRE_CHROMIUM === '1';
if (!hasChromium && !required) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the rotation browser test`);

const t = await createTestApp({ webhookAllowPrivate: true });
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req, srv) => t.app.fetch(req, srv) });
afterAll(() => server.stop(true));
const origin = server.url.origin;

describe('the console in headless Chromium: rotating a webhook secret', () => {
  test.skipIf(!hasChromium && !required)(
    'by keyboard, at 390 px: the overlap chosen, the new secret shown once',
    async () => {
      if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is not installed (apt-get install chromium)`);
      const a = await issuer(t, { keys: ['test'] });
      const hook = (await t.call('POST', '/webhooks', { token: a.key, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } })).json as {
        id: string;
        secret: string;
      };
      const { browser, context, outside } = await offlineBrowser(origin, { locale: 'en-US' });
      try {
        const page = await context.newPage();
        const errors = pageErrors(page);
        await page.setViewportSize({ width: 390, height: 844 });
        await signInConsole(page, origin, a.email, a.password);
        await page.goto(`${origin}/console/webhooks/${hook.id}`);
        expect(await fitsTheWidth(page)).toBe(true);

        // The select has its label; chosen and sent by keyboard.
        await page.getByLabel('The previous secret keeps signing for').selectOption('1');
        await page.focus('#rotate-secret');
        await Promise.all([page.waitForURL(`${origin}/console/webhooks/${hook.id}/rotate-secret`), page.keyboard.press('Enter')]);
        const secret = (await page.locator('#webhook-secret').textContent())!;
        expect(secret).toMatch(/^whsec_/);
        expect(secret).not.toBe(hook.secret);
        expect(await page.locator('#previous-secret').textContent()).toContain('keeps signing until');
        expect(await fitsTheWidth(page)).toBe(true);

        await page.goto(`${origin}/console/webhooks/${hook.id}`);
        expect(await page.content()).not.toContain(secret);
        expect(errors).toEqual([]);
        expect(outside).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
