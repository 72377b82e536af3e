import { afterAll, describe, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { CHROMIUM, hasChromium, offlineBrowser, pageErrors, signInConsole, fitsTheWidth } from '../browser.ts';
import { createTestApp, ICV, ingreso, issuer, READY, smtpSink, until } from '../helpers.ts';

/**
 * Issue 40's invoices screen in headless Chromium: find an invoice by RFC and by name, open it, email it (the local
 * SMTP sink gets it), cancel it with motivo 02 (SAT's explanation beside each motivo, a confirmation first) and see
 * its status; on a phone's width nothing scrolls sideways.
 */
const required = process.env.REQUIRE_CHROMIUM === '1';
if (!hasChromium && !required) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the invoices browser test`);

const sink = await smtpSink();
const t = await createTestApp({ smtp: sink.smtp });
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req, srv) => t.app.fetch(req, srv) });
afterAll(async () => {
  server.stop(true);
  await sink.close();
});
const origin = server.url.origin;
const OTHER = { rfc: 'AAA010101AAA', nombre: 'ACCEM SERVICIOS EMPRESARIALES', regimen_fiscal: '601', domicilio_fiscal: '01000', uso_cfdi: 'G03' };

const signIn = (page: Page, email: string, password: string) => signInConsole(page, origin, email, password);

describe('the invoices screen in headless Chromium', () => {
  test.skipIf(!hasChromium && !required)(
    'find by RFC and by name, open, email it, cancel with motivo 02 and see its status',
    async () => {
      if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is not installed (apt-get install chromium)`);
      const a = await issuer(t, READY);
      const mine = await t.call('POST', '/cfdis', { token: a.key, body: ingreso() });
      expect(mine.status).toBe(201);
      const other = await t.call('POST', '/cfdis', { token: a.key, body: ingreso({ receptor: OTHER }) });
      expect(other.status).toBe(201);
      const operator = await a.userWithRole('OPERATOR');

      const { browser, context, outside } = await offlineBrowser(origin, { locale: 'es-MX' });
      try {
        const page = await context.newPage();
        const errors = pageErrors(page);
        const dialogs: string[] = [];
        page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.accept();
        });
        await signIn(page, operator.email, operator.password);

        // By RFC in the one search box: only its row.
        await page.fill('#f-q', ICV.rfc);
        await Promise.all([page.waitForURL(/q=ICV060329BY0/), page.click('#search')]);
        expect(await page.locator('#invoices tbody tr').count()).toBe(1);
        expect(await page.locator(`tr[data-id="${mine.json.id}"]`).count()).toBe(1);
        expect(await page.locator('#download-zip').count()).toBe(1);

        // By part of the name, in its own field.
        await page.goto(`${origin}/console/invoices`);
        await page.fill('#f-receptor_nombre', 'servicios empre');
        await Promise.all([page.waitForURL(/receptor_nombre=/), page.click('#search')]);
        expect(await page.locator('#invoices tbody tr').count()).toBe(1);
        expect(await page.locator('#invoices').textContent()).toContain(OTHER.nombre);

        // Back to the first, by name, and open it.
        await page.goto(`${origin}/console/invoices?q=inmobiliaria`);
        await Promise.all([page.waitForURL(`${origin}/console/invoices/${mine.json.id}`), page.click(`tr[data-id="${mine.json.id}"] a`)]);
        expect(await page.locator('#uuid').textContent()).toBe(mine.json.uuid);
        await page.setViewportSize({ width: 390, height: 844 });
        expect(await fitsTheWidth(page)).toBe(true);
        await page.setViewportSize({ width: 1280, height: 720 });

        // Email it to the operator's own address (test mode sends only to the tenant's users): the sink receives it.
        await page.fill('#email-to', operator.email);
        await Promise.all([page.waitForURL(/done=email/), page.click('#send-email')]);
        expect(await page.locator('#notice').textContent()).toContain('Correo en cola');
        await until(() => sink.received.length > 0, 'the sink receives the mail');
        expect(sink.received).toHaveLength(1);
        await page.reload();
        expect(await page.locator('#emails').textContent()).toContain(operator.email.toLowerCase());

        // Cancel with motivo 02: SAT's words beside it, a confirmation, then its status.
        expect(await page.locator('label[for="motivo-02"]').textContent()).toContain('Comprobante emitido con errores sin relación');
        await page.check('#motivo-02');
        await Promise.all([page.waitForURL(/done=cancel/), page.click('#cancel')]);
        expect(dialogs).toEqual(['La cancelación ante el SAT no se puede deshacer. ¿Cancelar esta factura?']);
        expect(await page.locator('#status').textContent()).toBe('Cancelado');
        expect(await page.locator('#motivo').textContent()).toBe('02');
        expect(await page.locator('#history').textContent()).toContain('Cancelado');
        expect(await page.locator('#cancel-form').count()).toBe(0);
        expect((await t.call('GET', `/cfdis/${mine.json.id}`, { token: a.key })).json.status).toBe('cancelado');

        expect(outside).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
