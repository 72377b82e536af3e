import { afterAll, describe, expect, test } from 'bun:test';
import { unzipSync } from 'fflate';
import { localDateTime } from '../../src/cfdi/time.ts';
import { concepto, createTestApp, ICV, ingreso, issuer, READY, smtpSink } from '../helpers.ts';
import { signIn } from './sign-in.ts';

/** Issue 40, the invoices screen over HTTP: search, the ZIP of a filter, the detail's parts, and its actions by role. */
const sink = await smtpSink();
afterAll(() => sink.close());
const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('ok') });
afterAll(() => receiver.stop(true));
const t = await createTestApp({ wakeOnEnqueue: false, smtp: sink.smtp, webhookAllowPrivate: true });
const a = await issuer(t, READY);
const b = await issuer(t, { ...READY, tenant: { nombre: 'OTRO COMERCIO' } });
const OTHER = { rfc: 'AAA010101AAA', nombre: 'ACCEM SERVICIOS EMPRESARIALES', regimen_fiscal: '601', domicilio_fiscal: '01000', uso_cfdi: 'G03' };

async function issued(body: Record<string, unknown>, key = a.key): Promise<{ id: string; uuid: string; folio: number; total: number }> {
  const res = await t.call('POST', '/cfdis', { token: key, body });
  expect(res.status).toBe(201);
  return res.json;
}
const cva = [await issued(ingreso()), await issued(ingreso({ conceptos: [concepto({ valor_unitario: 2000 })] }))];
const accem = await issued(ingreso({ receptor: OTHER }));
await issued(ingreso(), b.key);

const viewer = await a.userWithRole('VIEWER');
const operator = await a.userWithRole('OPERATOR');
const asViewer = await signIn(t.app, viewer.email, viewer.password);
const asOperator = await signIn(t.app, operator.email, operator.password);

const get = (path: string, cookie: string) => t.app.request(path, { headers: { cookie } });
const post = (path: string, cookie: string, fields: Record<string, string>) =>
  t.app.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
const idsOf = (html: string) => [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!);
const apiIds = async (query: string) =>
  (await t.call('GET', `/cfdis?limit=100&${query}`, { token: a.key })).json.data.map((c: { id: string }) => c.id) as string[];
const text = async (res: Response | Promise<Response>) => (await res).text();

describe('the invoices screen over HTTP', () => {
  test("search: one box for an RFC, a UUID or a name; name, UUID, folio and amounts by field; the API's rows", async () => {
    const list = (query: string) => text(get(`/console/invoices?${query}`, asViewer.cookie));
    expect(idsOf(await list(`q=${ICV.rfc.toLowerCase()}`))).toEqual(await apiIds(`receptor_rfc=${ICV.rfc}`));
    expect(idsOf(await list(`q=${ICV.rfc}`))).toEqual([cva[1]!.id, cva[0]!.id]);
    expect(idsOf(await list(`q=${cva[0]!.uuid.toLowerCase()}`))).toEqual([cva[0]!.id]);
    expect(idsOf(await list('q=servicios%20empre'))).toEqual([accem.id]);
    expect(idsOf(await list('receptor_nombre=inmobiliaria'))).toEqual([cva[1]!.id, cva[0]!.id]);
    expect(idsOf(await list(`uuid=${accem.uuid}`))).toEqual([accem.id]);
    expect(idsOf(await list(`folio=${cva[1]!.folio}&serie=A`))).toEqual([cva[1]!.id]);
    expect(idsOf(await list('total_min=1000'))).toEqual([cva[1]!.id]);
    expect(idsOf(await list('total_max=1000'))).toEqual(await apiIds('total_max=1000'));
    // A bad amount: the API's 400, naming the field, on the page.
    const bad = await get('/console/invoices?total_min=mil', asViewer.cookie);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('total_min');
    // What was typed comes back in the form, escaped.
    const typed = await list(`q=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(typed).not.toContain('<script>alert(1)</script>');
    expect(typed).toContain('value="&#60;script&#62;alert(1)&#60;/script&#62;"');
    expect(typed).toContain('id="empty"');
  });

  test("the ZIP of a filter: the API's XML bytes of every stamped CFDI it matches, for any role", async () => {
    const html = await text(get(`/console/invoices?q=${ICV.rfc}`, asViewer.cookie));
    const href = /href="([^"]+)" id="download-zip"/.exec(html)![1]!.replaceAll('&#38;', '&');
    expect(href).toBe(`/console/invoices.zip?q=${ICV.rfc}`);
    const res = await get(href, asViewer.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(files)).toEqual([`${cva[1]!.uuid}.xml`, `${cva[0]!.uuid}.xml`]);
    for (const c of cva) {
      const xml = await t.app.request(`/api/v1/cfdis/${c.uuid}/xml`, { headers: { authorization: `Bearer ${a.key}` } });
      expect(Buffer.from(files[`${c.uuid}.xml`]!).equals(Buffer.from(await xml.arrayBuffer()))).toBe(true);
    }
    // Another tenant's CFDIs never: B's ZIP of the same filter has only B's.
    const other = await signIn(t.app, b.email, b.password);
    const theirs = unzipSync(new Uint8Array(await (await get(href, other.cookie)).arrayBuffer()));
    expect(Object.keys(theirs)).toHaveLength(1);
    expect(Object.keys(theirs)).not.toContain(`${cva[0]!.uuid}.xml`);
  });

  test('the detail: the XML pretty-printed and escaped, the PDF inline, SAT status on demand (any role)', async () => {
    const html = await text(get(`/console/invoices/${cva[0]!.id}`, asViewer.cookie));
    expect(html).toContain('<pre class="xml">');
    expect(html).toMatch(/\n {2}&#60;cfdi:Emisor /); // one element a line, indented, escaped
    expect(html).not.toContain('<cfdi:Comprobante');
    expect(html).toContain(`href="/console/invoices/${cva[0]!.id}/pdf?inline=1"`);
    const inline = await get(`/console/invoices/${cva[0]!.id}/pdf?inline=1`, asViewer.cookie);
    expect(inline.status).toBe(200);
    expect(inline.headers.get('content-type')).toBe('application/pdf');
    expect(inline.headers.get('content-disposition')).toMatch(/^inline/);
    expect((await get(`/console/invoices/${cva[0]!.id}/pdf`, asViewer.cookie)).headers.get('content-disposition')).toMatch(/^attachment/);
    // A VIEWER sees no change: no email form, no cancel form; SAT's status is a read and answers.
    expect(html).not.toContain('id="email-form"');
    expect(html).not.toContain('id="cancel-form"');
    const sat = await text(get(`/console/invoices/${cva[0]!.id}/sat-status`, asViewer.cookie));
    expect(/id="sat-estado">([^<]*)</.exec(sat)![1]).toBe('Vigente');
  });

  test('complements in words: a Pago names the documents it paid', async () => {
    const ppd = await issued(ingreso({ metodo_pago: 'PPD', forma_pago: '99' }));
    const fecha = localDateTime(new Date(t.clock.now.getTime() - 3600_000), '42501');
    const pago = await issued({
      tipo: 'P',
      receptor: { ...ICV, uso_cfdi: 'CP01' },
      pagos: [{ fecha_pago: fecha, forma_pago: '03', moneda: 'MXN', monto: 50, documentos: [{ cfdi_id: ppd.id, imp_pagado: '50.00' }] }],
    });
    const html = await text(get(`/console/invoices/${pago.id}`, asViewer.cookie));
    expect(html).toContain('id="complements"');
    expect(html).toContain('Pagos');
    expect(html).toContain(`${ppd.uuid}: parcialidad 1, pagado 50 MXN`);
  });

  test('send by email: an OPERATOR sends it (one mail reaches the SMTP sink, listed on the detail); a VIEWER is refused (403)', async () => {
    const c = cva[0]!;
    const refused = await post(`/console/invoices/${c.id}/email`, asViewer.cookie, { csrf: csrfOf(asViewer.html), to: viewer.email });
    expect(refused.status).toBe(403);
    const html = await text(get(`/console/invoices/${c.id}`, asOperator.cookie));
    expect(html).toContain('id="email-form"');
    // A bad address: the API's refusal beside the field.
    const bad = await post(`/console/invoices/${c.id}/email`, asOperator.cookie, { csrf: csrfOf(html), to: 'not-an-address' });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toContain('id="email-to-error"');
    expect(badHtml).toContain('aria-invalid="true" aria-describedby="email-to-error"');
    const before = sink.received.length;
    const sent = await post(`/console/invoices/${c.id}/email`, asOperator.cookie, { csrf: csrfOf(html), to: operator.email });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toBe(`/console/invoices/${c.id}?done=email`);
    await t.app.worker.drain();
    expect(sink.received.length).toBe(before + 1);
    const mail = sink.received.at(-1)!;
    expect(mail.to && !Array.isArray(mail.to) && mail.to.value.map((x) => x.address)).toEqual([operator.email.toLowerCase()]);
    const after = await text(get(`/console/invoices/${c.id}?done=email`, asOperator.cookie));
    expect(after).toContain('id="notice"');
    expect(after).toContain(operator.email.toLowerCase());
    expect(/class="email-status">([^<]*)</.exec(after)![1]).toBe('Enviado (1)');
  });

  test("cancel: motivo 01 without its UUID is refused beside the field; motivo 02 cancels (the sandbox's cancelado); a VIEWER is refused", async () => {
    const c = await issued(ingreso());
    const viewerTry = await post(`/console/invoices/${c.id}/cancel`, asViewer.cookie, { csrf: csrfOf(asViewer.html), motivo: '02' });
    expect(viewerTry.status).toBe(403);
    expect((await t.call('GET', `/cfdis/${c.id}`, { token: a.key })).json.status).toBe('vigente');
    const html = await text(get(`/console/invoices/${c.id}`, asOperator.cookie));
    expect(html).toContain('id="cancel-form"');
    for (const m of ['01', '02', '03', '04']) expect(html).toContain(`id="motivo-${m}"`);
    const without = await post(`/console/invoices/${c.id}/cancel`, asOperator.cookie, { csrf: csrfOf(html), motivo: '01' });
    expect(without.status).toBe(400);
    expect(await without.text()).toContain('id="cancel-folio_sustitucion-error"');
    const done = await post(`/console/invoices/${c.id}/cancel`, asOperator.cookie, { csrf: csrfOf(html), motivo: '02' });
    expect(done.status).toBe(303);
    expect((await t.call('GET', `/cfdis/${c.id}`, { token: a.key })).json.status).toBe('cancelado');
    const after = await text(get(`/console/invoices/${c.id}?done=cancel`, asOperator.cookie));
    expect(/id="status">([^<]*)</.exec(after)![1]).toBe('Cancelado');
    expect(/id="motivo">([^<]*)</.exec(after)![1]).toBe('02');
    expect(after).not.toContain('id="cancel-form"');
    // Cancelling again: the API's refusal (409) on the page, nothing changed.
    const again = await post(`/console/invoices/${c.id}/cancel`, asOperator.cookie, { csrf: csrfOf(html), motivo: '02' });
    expect(again.status).toBe(409);
  });

  test("webhook deliveries of this invoice's events: shown to an ADMIN (the API lists them to ADMIN only), not to a VIEWER", async () => {
    const hook = await t.call('POST', '/webhooks', { token: a.key, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['*'] } });
    expect(hook.status).toBe(201);
    const c = await issued(ingreso());
    const later = await issued(ingreso());
    await t.app.worker.drain();
    const admin = await signIn(t.app, a.email, a.password);
    const html = await text(get(`/console/invoices/${c.id}`, admin.cookie));
    expect(html).toContain('id="deliveries"');
    const section = html.slice(html.indexOf('id="deliveries"'), html.indexOf('</section>', html.indexOf('id="deliveries"')));
    expect(section).toContain('cfdi.timbrado');
    expect(section).toContain('entregado (1)');
    expect(section).toContain(`http://127.0.0.1:${receiver.port}/hook`);
    // Only this invoice's: the API's own list for it, one row each.
    const own = (await t.call('GET', `/webhooks/${hook.json.id}/deliveries?cfdi_id=${c.id}`, { token: a.key })).json.data;
    expect((section.match(/class="delivery-state"/g) ?? []).length).toBe(own.length);
    expect(later.id).not.toBe(c.id);
    expect(await text(get(`/console/invoices/${c.id}`, asViewer.cookie))).not.toContain('id="deliveries"');
  });
});
