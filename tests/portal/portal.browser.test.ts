import { afterAll, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { CHROMIUM, hasChromium, offlineBrowser, pageErrors } from '../browser.ts';
import { createTestApp, ICV, issuer, READY, smtpSink } from '../helpers.ts';
import { openReceipt } from './receipts.ts';

/**
 * Acceptance 3 (issue 24): the self-invoicing portal in headless Chromium, with the network limited to the app. A
 * customer opens the link printed on a ticket, is told the SAT rule a wrong régimen/uso pair breaks, invoices it,
 * sees the UUID and downloads the PDF; the ticket cannot be invoiced twice; another tenant's key is refused.
 */
const required = process.env.REQUIRE_CHROMIUM === '1';
if (!hasChromium && !required) console.warn(`${CHROMIUM} not found (Debian: apt-get install chromium): skipping the portal's browser test`);

const sink = await smtpSink();
afterAll(() => sink.close());
const t = await createTestApp({ smtp: { ...sink.smtp, testCapture: 'captura@example.com' } }); // a test ticket's email goes to the capture
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req, srv) => t.app.fetch(req, srv) });
afterAll(() => server.stop(true));
const origin = server.url.origin;

describe('the self-invoicing portal in headless Chromium', () => {
  test.skipIf(!hasChromium && !required)(
    'open the ticket link, see the SAT rule, invoice, download the PDF; not twice; not with another tenant key',
    async () => {
      if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${CHROMIUM} is not installed (apt-get install chromium)`);
      const a = await issuer(t, READY);
      const b = await issuer(t, { ...READY, tenant: { nombre: 'OTRO COMERCIO' } });
      const ticket = await openReceipt(a, origin);
      const theirs = await openReceipt(b, origin);

      const { browser, context, outside } = await offlineBrowser(origin, { acceptDownloads: true, locale: 'es-MX' });
      try {
        const requested: string[] = [];
        context.on('request', (req) => requested.push(req.url()));
        const page = await context.newPage();
        const errors = pageErrors(page);

        // The link printed on the ticket: the key is filled in and the ticket shown.
        expect((await page.goto(ticket.url))?.status()).toBe(200);
        await expect(page.locator('h1').textContent()).resolves.toBe('ESCUELA KEMPER URGATE');
        await page.locator('#ticket-total').waitFor();
        expect(await page.locator('#ticket-total').textContent()).toContain('116.00');

        // A régimen/uso pair SAT does not allow: the rule, in words, on the field.
        await page.fill('#rfc', ICV.rfc);
        await page.fill('#nombre', ICV.nombre);
        await page.fill('#domicilio_fiscal', ICV.domicilio_fiscal);
        await page.selectOption('#regimen_fiscal', '601');
        await page.selectOption('#uso_cfdi', 'D01');
        await page.click('#facturar');
        const problem = page.locator('#errores li[data-field="receptor.uso_cfdi"]');
        await problem.waitFor();
        const said = (await problem.textContent())!;
        expect(said).toContain('Uso del CFDI');
        expect(said).toContain('no está permitido para el régimen fiscal 601');
        expect(said).toContain('CFDI40161');
        expect(await page.getAttribute('#uso_cfdi', 'aria-invalid')).toBe('true');

        // Fixed: issued, the UUID shown, the email sent, the PDF downloaded.
        await page.selectOption('#uso_cfdi', 'G03');
        await page.fill('#email', 'ana@example.com');
        await page.click('#facturar');
        await page.locator('#uuid').waitFor();
        const uuid = (await page.locator('#uuid').textContent())!;
        expect(uuid).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
        expect(await page.locator('#correo').textContent()).toContain('ana@example.com');
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#descargar-pdf')]);
        expect(download.suggestedFilename()).toBe(`${uuid}.pdf`);
        const pdf = await readFile((await download.path())!);
        expect(pdf.subarray(0, 4).toString('latin1')).toBe('%PDF');
        const api = await t.app.request(`/api/v1/cfdis/${uuid}/pdf`, { headers: { authorization: `Bearer ${a.key}` } });
        expect(api.status).toBe(200);
        expect(pdf.equals(Buffer.from(await api.arrayBuffer()))).toBe(true);
        await t.app.worker.drain();
        expect(sink.received.map((m) => m.attachments.map((x) => x.filename).sort())).toContainEqual([`${uuid}.pdf`, `${uuid}.xml`]);

        // The same link again: invoiced already, the page says so and offers no second invoice.
        await page.goto(ticket.url);
        await page.locator('#aviso-ticket').waitFor();
        expect(await page.locator('#aviso-ticket').textContent()).toContain('ya fue facturado');
        expect(await page.locator('#facturar').isDisabled()).toBe(true);
        // Its PDF again, with the RFC it was invoiced to.
        await page.fill('#rfc-descarga', ICV.rfc.toLowerCase());
        const [again] = await Promise.all([page.waitForEvent('download'), page.click('#descargar-otra-vez-pdf')]);
        expect((await readFile((await again.path())!)).equals(pdf)).toBe(true);

        // Another tenant's ticket key at this tenant's portal: not found, nothing of it shown.
        await page.goto(`${origin}/portal/${a.tenant.id}?clave=${theirs.key}`);
        await page.locator('#errores li[data-field="clave"]').waitFor();
        expect(await page.locator('#errores').textContent()).toContain('Ticket no encontrado');
        expect(await page.locator('#ticket').isHidden()).toBe(true);
        expect(await page.content()).not.toContain('OTRO COMERCIO');

        expect(outside).toEqual([]);
        expect(requested.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
