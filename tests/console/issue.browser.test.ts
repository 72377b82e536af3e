import { afterAll, describe, expect, test } from 'bun:test';
import { CHROMIUM, hasChromium, offlineBrowser, screenshot, pageErrors, signInConsole, fitsTheWidth } from '../browser.ts';
import { createTestApp, ICV, issuer, READY } from '../helpers.ts';

/**
 * Issue 40, build item 3, in headless Chromium: an Ingreso filled in the form with one mistake that the validation
 * names beside its field, fixed and stamped, landing on its detail; the catalog search offers a clave as one types;
 * the totals follow the conceptos live; a reload keeps the draft. The screenshot of the filled form is the README's.
 */
const required = process.env.REQUIRE_CHROMIUM === '1';
if (!hasChromium && !required) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the issue form's browser test`);

const t = await createTestApp();
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req, srv) => t.app.fetch(req, srv) });
afterAll(() => server.stop(true));
const origin = server.url.origin;

describe('the issue form in headless Chromium', () => {
  test.skipIf(!hasChromium && !required)(
    'fill an Ingreso, a mistake beside its field, fixed and stamped; catalog search; live totals; the draft survives a reload',
    async () => {
      if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is not installed (apt-get install chromium)`);
      const a = await issuer(t, READY);
      const { browser, context, outside } = await offlineBrowser(origin, { locale: 'es-MX', viewport: { width: 1100, height: 900 } });
      try {
        const page = await context.newPage();
        const errors = pageErrors(page);
        await signInConsole(page, origin, a.email, a.password);

        // From the navigation (an ADMIN sees the entry) to the form.
        await Promise.all([page.waitForURL(`${origin}/console/invoices/new`), page.click('nav a[href="/console/invoices/new"]')]);
        const field = (name: string) => `[name="${name}"]`;
        /** Waits until the element's text (or the named input's value) is this. */
        const shows = (selector: string, text: string) =>
          page.waitForFunction(([s, v]) => document.querySelector(s!)?.textContent === v, [selector, text], { timeout: 10_000 });
        const holds = (name: string, value: string) =>
          page.waitForFunction(([s, v]) => (document.querySelector(s!) as HTMLInputElement | null)?.value === v, [field(name), value], { timeout: 10_000 });

        // The customer, typed.
        await page.fill(field('receptor.rfc'), ICV.rfc);
        await page.fill(field('receptor.nombre'), ICV.nombre);
        await page.fill(field('receptor.regimen_fiscal'), ICV.regimen_fiscal);
        await page.fill(field('receptor.domicilio_fiscal'), ICV.domicilio_fiscal);
        await page.fill(field('receptor.uso_cfdi'), ICV.uso_cfdi);

        // The catalog search offers the clave as one types words of its description.
        await page.locator(field('conceptos[0].clave_prod_serv')).pressSequentially('servicios de facturacion', { delay: 20 });
        await page.locator('#dl-productos-servicios option[value="84111506"]').waitFor({ state: 'attached' });
        await page.locator(field('conceptos[0].clave_unidad')).pressSequentially('E48', { delay: 20 });
        await page.locator('#dl-unidades option[value="E48"]').waitFor({ state: 'attached' });

        // One mistake: a key that is no c_ClaveProdServ.
        await page.fill(field('conceptos[0].clave_prod_serv'), '99999999');
        await page.fill(field('conceptos[0].descripcion'), 'Servicio de facturación <b>mensual</b>');
        await page.fill(field('conceptos[0].cantidad'), '2');
        await page.fill(field('conceptos[0].valor_unitario'), '100.10');

        // Totals live, in exact decimals: 2 × 100.10 = 200.20, IVA 16 % 32.032 → 32.03, total 232.23.
        await shows('#t-total', '232.23');
        expect(await page.locator('#t-subtotal').textContent()).toBe('200.20');
        // A second concepto (the script's row) moves them; removed, they come back.
        await page.click('#add-concepto');
        await page.fill(field('conceptos[1].cantidad'), '3');
        await page.fill(field('conceptos[1].valor_unitario'), '0.10');
        await page.selectOption(field('conceptos[1].iva'), 'exento');
        await shows('#t-total', '232.53');
        await page.locator('[data-row="concepto"]').nth(1).locator('[data-remove]').click();
        await shows('#t-total', '232.23');
        expect(await page.locator('[data-row="concepto"]').count()).toBe(1);

        // Reload: the draft is back (per tenant and environment).
        await page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('cfdi-draft:') && localStorage.getItem(k)!.includes('100.10')));
        await page.reload();
        await holds('conceptos[0].valor_unitario', '100.10');
        expect(await page.inputValue(field('conceptos[0].clave_prod_serv'))).toBe('99999999');
        expect(await page.inputValue(field('receptor.rfc'))).toBe(ICV.rfc);
        await shows('#t-total', '232.23');

        // "Emitir": the API's validation names the mistake beside its field; nothing is issued.
        const before = (await t.call('GET', '/cfdis', { token: a.key })).json.data.length;
        await page.click('#emit');
        const note = page.locator('#e-f-conceptos-0--clave_prod_serv');
        await note.waitFor({ state: 'visible' });
        expect(await note.textContent()).toBeTruthy();
        expect(await page.getAttribute(field('conceptos[0].clave_prod_serv'), 'aria-invalid')).toBe('true');
        expect(await page.getAttribute(field('conceptos[0].clave_prod_serv'), 'aria-describedby')).toBe('e-f-conceptos-0--clave_prod_serv');
        expect(page.url()).toBe(`${origin}/console/invoices/new`);
        expect((await t.call('GET', '/cfdis', { token: a.key })).json.data.length).toBe(before);

        // Fixed: the error goes as one types (validated as one goes), then stamped, landing on the detail.
        await page.fill(field('conceptos[0].clave_prod_serv'), '84111506');
        await page.locator(field('conceptos[0].clave_prod_serv')).blur();
        await note.waitFor({ state: 'hidden' });
        await page.locator('#issue-errors').waitFor({ state: 'hidden' });
        expect(await page.getAttribute(field('conceptos[0].clave_prod_serv'), 'aria-invalid')).toBeNull();
        await screenshot(page, 'issue-form', { fullPage: true });
        await Promise.all([page.waitForURL(/\/console\/invoices\/cfdi_[0-9a-zA-Z]+$/), page.click('#emit')]);
        expect(await page.locator('#status').textContent()).toBe('Vigente');
        expect(await page.locator('#conceptos').textContent()).toContain('Servicio de facturación <b>mensual</b>');
        expect(await page.locator('#total').textContent()).toContain('232.23');
        const id = page.url().split('/').pop()!;
        expect((await t.call('GET', `/cfdis/${id}`, { token: a.key })).json.status).toBe('vigente');

        // Issued: the draft is gone, the form starts empty.
        expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('cfdi-draft:')).length)).toBe(0);
        await page.goto(`${origin}/console/invoices/new`);
        expect(await page.inputValue(field('conceptos[0].clave_prod_serv'))).toBe('');

        // The tipo switch: a Pago shows its payment and documents instead of conceptos (the no-script button is not needed).
        expect(await page.locator('#change-tipo').isHidden()).toBe(true);
        await page.selectOption(field('tipo'), 'P');
        expect(await page.locator('#pago-part').isVisible()).toBe(true);
        expect(await page.locator('#conceptos-part').isHidden()).toBe(true);
        await page.click('#add-documento');
        expect(await page.locator(field('pagos[0].documentos[1].imp_pagado')).count()).toBe(1);

        // On a phone the form fits the width.
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
