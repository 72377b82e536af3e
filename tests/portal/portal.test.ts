import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { concepto, createTestApp, ICV, issuer, READY, until } from '../helpers.ts';
import { heldPool } from '../invoices/cfdis/held-pool.ts';
import { openReceipt } from './receipts.ts';

/**
 * The self-invoicing portal's page and JSON endpoints over HTTP (no browser; portal.browser.test.ts drives the page
 * in Chromium): what a key of another tenant, junk and too many requests get.
 */
// Two PDF threads and eight waiting places, held on demand: the portal's share of them is seen without racing renders.
const held = heldPool(2, 8);
const t = await createTestApp({ pdfPool: held.pool });
const a = await issuer(t, READY);
const b = await issuer(t, READY);

const RECEPTOR = { rfc: ICV.rfc, nombre: ICV.nombre, domicilio_fiscal: ICV.domicilio_fiscal, regimen_fiscal: ICV.regimen_fiscal, uso_cfdi: ICV.uso_cfdi };

async function portal(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, app = t.app) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await app.request(path, init);
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, json };
}

describe('GET /portal/{tenant_id}', () => {
  test("the page: Spanish, the tenant's name, the SAT catalogs, the key prefilled, only same-origin assets, a strict CSP", async () => {
    const r = await openReceipt(a);
    const res = await portal('GET', `/portal/${a.tenant.id}?clave=${r.key}`, undefined, { accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.text).toContain('<html lang="es">');
    expect(res.text).toContain('ESCUELA KEMPER URGATE');
    expect(res.text).toContain(`value="${r.key}"`);
    expect(res.text).toContain('<option value="601">601 — General de Ley Personas Morales</option>');
    expect(res.text).toContain('<option value="G03">G03 — Gastos en general</option>');
    expect(res.text).not.toMatch(/https?:\/\//);
    // No SMTP configured here: no email field, and the page says so.
    expect(res.text).not.toContain('id="email"');
    expect(res.text).toContain('id="sin-correo"');
    for (const ref of [...res.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'))) {
      expect(ref).toStartWith('/portal/assets/');
      const asset = await t.app.request(ref);
      expect([ref, asset.status]).toEqual([ref, 200]);
      expect(asset.headers.get('cache-control')).toContain('immutable');
    }
  });

  test('the markup escapes what it echoes', async () => {
    const res = await portal('GET', `/portal/${a.tenant.id}?clave=${encodeURIComponent('"><script>alert(1)</script>')}`, undefined, { accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('&#34;&#62;&#60;script&#62;');
  });

  test("the tenant's accent colour and logo", async () => {
    const c = await issuer(t, READY);
    const logo = await Bun.file(new URL('../fixtures/branding/logo.png', import.meta.url).pathname).bytes();
    const form = new FormData();
    form.append('logo', new Blob([logo], { type: 'image/png' }), 'logo.png');
    expect((await c.api('PUT', '/tenants/me/logo', { form })).status).toBe(200);
    expect((await c.api('PATCH', '/tenants/me', { body: { accent_color: '#aa3300' } as never })).status).toBeLessThan(300);
    const res = await portal('GET', `/portal/${c.tenant.id}`, undefined, { accept: 'text/html' });
    expect(res.text).toContain(`<img src="/portal/${c.tenant.id}/logo"`);
    // The colour is an inline style the CSP allows by its hash, and nothing else inline.
    expect(res.text).toContain('<style>:root { --accent: #AA3300; }</style>');
    expect(res.headers.get('content-security-policy')).toMatch(/style-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    const served = await t.app.request(`/portal/${c.tenant.id}/logo`);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(logo))).toBe(true);
    expect((await t.app.request(`/portal/${a.tenant.id}/logo`)).status).toBe(404);
  });

  test('an unknown tenant: a 404 page for a browser, the envelope otherwise', async () => {
    const html = await portal('GET', '/portal/ten_doesnotexist', undefined, { accept: 'text/html' });
    expect(html.status).toBe(404);
    expect(html.text).toContain('Portal no encontrado');
    const json = await portal('GET', '/portal/ten_doesnotexist');
    expect(json.status).toBe(404);
    expect(json.json.error.code).toBe('HTTP_404');
  });
});

describe('the portal JSON endpoints', () => {
  test('look up a ticket by its key (any case, with dashes), then invoice it once', async () => {
    const r = await openReceipt(a);
    const typed = `${r.key.slice(0, 5).toLowerCase()}-${r.key.slice(5)}`;
    const found = await portal('GET', `/portal/${a.tenant.id}/ticket?clave=${typed}`);
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ total: 116, status: 'open', can_invoice: true, can_download: false });
    const issued = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: RECEPTOR, email: 'ana@example.com' });
    expect(issued.status).toBe(201);
    expect(issued.json.uuid).toMatch(/^[0-9A-F-]{36}$/);
    expect(issued.json.email).toEqual({ status: 'unavailable', to: 'ana@example.com' });
    // The tenant's audit log names the portal as the actor, and the receipt.
    const audit = await t.call('GET', '/audit-log?action=invoicePortalTicket', { token: a.key });
    expect(audit.json.data[0]).toMatchObject({ actor: { type: 'api_key', id: 'portal' }, resource: { type: 'receipts', id: r.id }, status: 201 });
    const again = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: RECEPTOR });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain('ya fue facturado');
    const after = await portal('GET', `/portal/${a.tenant.id}/ticket?clave=${r.key}`);
    expect(after.json).toMatchObject({ status: 'invoiced', invoiced_by: 'self', can_invoice: false, can_download: true });
    expect(after.json.deadline).toBeUndefined();

    // Downloads: the same bytes as the API's, and only with the RFC it was issued to.
    const pdf = await t.app.request(`/portal/${a.tenant.id}/ticket/pdf?clave=${r.key}&rfc=${RECEPTOR.rfc}`);
    expect(pdf.status).toBe(200);
    const apiPdf = await t.app.request(`/api/v1/cfdis/${issued.json.uuid}/pdf`, { headers: { authorization: `Bearer ${a.key}` } });
    expect(Buffer.from(await pdf.arrayBuffer()).equals(Buffer.from(await apiPdf.arrayBuffer()))).toBe(true);
    const xml = await t.app.request(`/portal/${a.tenant.id}/ticket/xml?clave=${r.key}&rfc=${RECEPTOR.rfc.toLowerCase()}`);
    expect(xml.status).toBe(200);
    expect(await xml.text()).toContain(issued.json.uuid);
    // Again, as often as asked; another RFC is told exactly what an unknown ticket is.
    expect((await t.app.request(`/portal/${a.tenant.id}/ticket/pdf?clave=${r.key}&rfc=${RECEPTOR.rfc}`)).status).toBe(200);
    const otherRfc = await portal('GET', `/portal/${a.tenant.id}/ticket/xml?clave=${r.key}&rfc=URE180429TM6`);
    const unknown = await portal('GET', `/portal/${a.tenant.id}/ticket/xml?clave=0000000000000000000000000Z&rfc=${RECEPTOR.rfc}`);
    expect(otherRfc.status).toBe(404);
    expect([otherRfc.status, otherRfc.json.error]).toEqual([unknown.status, unknown.json.error]);
  });

  test("another tenant's key is the same 'ticket no encontrado' as a key that does not exist", async () => {
    const theirs = await openReceipt(b);
    const foreign = await portal('GET', `/portal/${a.tenant.id}/ticket?clave=${theirs.key}`);
    const missing = await portal('GET', `/portal/${a.tenant.id}/ticket?clave=0000000000000000000000000Z`);
    const noTenant = await portal('GET', `/portal/ten_nope/ticket?clave=${theirs.key}`);
    expect(foreign.status).toBe(404);
    const said = (r: typeof foreign) => JSON.stringify([r.status, r.json.error]);
    expect(said(foreign)).toBe(said(missing));
    expect(said(noTenant)).toBe(said(missing));
    const invoice = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: theirs.key, receptor: RECEPTOR });
    expect(invoice.status).toBe(404);
    expect(invoice.json.error.message).toBe('Ticket no encontrado');
    // B's ticket is still open for B's customers.
    expect((await portal('GET', `/portal/${b.tenant.id}/ticket?clave=${theirs.key}`)).json.can_invoice).toBe(true);
    for (const f of ['pdf', 'xml'])
      expect((await portal('GET', `/portal/${a.tenant.id}/ticket/${f}?clave=${theirs.key}&rfc=${RECEPTOR.rfc}`)).status).toBe(404);
  });

  test('SAT rule problems in Spanish, naming the field, with the rule code', async () => {
    const r = await openReceipt(a);
    const wrong = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: { ...RECEPTOR, uso_cfdi: 'D01' } });
    expect(wrong.status).toBe(400);
    const d = wrong.json.error.details.find((x: any) => x.field === 'receptor.uso_cfdi');
    expect(d.rule).toBe('CFDI40161');
    expect(d.issue).toContain('no está permitido para el régimen fiscal 601');
    const cp = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: { ...RECEPTOR, domicilio_fiscal: '00000' } });
    expect(cp.json.error.details).toContainEqual(expect.objectContaining({ field: 'receptor.domicilio_fiscal', rule: 'CFDI40147' }));
    const persona = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: { ...RECEPTOR, regimen_fiscal: '605' } });
    expect(persona.json.error.details).toContainEqual(expect.objectContaining({ field: 'receptor.regimen_fiscal', rule: 'CFDI40158' }));
    // February 31st: the shape of an RFC, but no date, so not in SAT's list.
    const rfc = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: { ...RECEPTOR, rfc: 'ICV060231BY0' } });
    expect(rfc.json.error.details).toContainEqual(expect.objectContaining({ field: 'receptor.rfc', rule: 'CFDI40143' }));
    const shape = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: { ...RECEPTOR, rfc: '123456789012' } });
    expect(shape.json.error.details).toContainEqual(expect.objectContaining({ field: 'receptor.rfc', issue: expect.stringContaining('formato del SAT') }));
    // None of them used the ticket up.
    expect((await portal('GET', `/portal/${a.tenant.id}/ticket?clave=${r.key}`)).json.can_invoice).toBe(true);
  });

  test('junk is a 400 naming the field, never a 500', async () => {
    const r = await openReceipt(a);
    const path = `/portal/${a.tenant.id}/ticket/invoice`;
    const bodies: unknown[] = [
      '{',
      'null',
      '[]',
      '"x"',
      {},
      { clave: r.key },
      { clave: r.key, receptor: {} },
      { clave: 7, receptor: RECEPTOR },
      { clave: r.key, receptor: { ...RECEPTOR, rfc: null } },
      { clave: r.key, receptor: { ...RECEPTOR, extra: 1 } },
      { clave: r.key, receptor: RECEPTOR, email: 'not-an-email' },
      { clave: 'x'.repeat(65), receptor: RECEPTOR },
      { clave: r.key, receptor: { ...RECEPTOR, nombre: 'A\u0000B' } },
      { clave: r.key, receptor: { ...RECEPTOR, nombre: '\ud800' } },
    ];
    for (const body of bodies) {
      const res = await portal('POST', path, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.json.error.details.length).toBeGreaterThan(0);
    }
    expect((await portal('POST', path, 'clave=x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await portal('POST', path, JSON.stringify({ clave: 'x'.repeat(20_000) }))).status).toBe(413);
    for (const q of ['', '?clave=', `?clave=${'x'.repeat(65)}`]) expect((await portal('GET', `/portal/${a.tenant.id}/ticket${q}`)).status).toBe(400);
    expect((await portal('GET', `/portal/${a.tenant.id}/ticket/pdf?clave=${r.key}`)).status).toBe(400);
    // The ticket is still there to invoice.
    expect((await portal('GET', `/portal/${a.tenant.id}/ticket?clave=${r.key}`)).json.can_invoice).toBe(true);
  });

  test('rate-limited per client address: 429 with Retry-After, other addresses unaffected', async () => {
    const limited = await createTestApp({ portalRateLimit: 3 });
    const from = (address: string) => ({ requestIP: () => ({ address, family: 'IPv4', port: 40000 }) });
    const path = `/portal/${a.tenant.id}/ticket?clave=0000000000000000000000000Z`;
    for (let i = 0; i < 3; i++) expect((await limited.app.request(path, {}, from('10.0.0.1'))).status).toBe(404);
    const refused = await limited.app.request(path, {}, from('10.0.0.1'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).error.code).toBe('HTTP_429');
    expect((await limited.app.request(`/portal/${a.tenant.id}`, {}, from('10.0.0.1'))).status).toBe(429);
    expect((await limited.app.request(path, {}, from('10.0.0.2'))).status).toBe(404);
  });
});

describe('tickets that can no longer be invoiced, as the receipts service left them', () => {
  const lookup = (key: string) => portal('GET', `/portal/${a.tenant.id}/ticket?clave=${key}`);
  const invoice = (key: string) => portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: key, receptor: RECEPTOR });

  test('cancelled, in the global invoice, or past its month: the page is told why, and invoicing is 409 saying so', async () => {
    const cancelled = await openReceipt(a);
    expect((await t.call('POST', `/receipts/${cancelled.id}/cancel`, { token: a.key })).status).toBe(200);
    const global = await openReceipt(a);
    const day = (await t.call('GET', `/receipts/${global.id}`, { token: a.key })).json.fecha.slice(0, 10);
    const issued = await t.call('POST', '/receipts/global-invoice', { token: a.key, body: { periodicidad: '01', desde: day, hasta: day } });
    expect(issued.status).toBe(201);
    const cfdis = async () => (await t.call('GET', '/cfdis?limit=100', { token: a.key })).json.data.length;
    const before = await cfdis();
    for (const [r, words] of [
      [cancelled, 'canceló'],
      [global, 'factura global'],
    ] as const) {
      const seen = await lookup(r.key);
      expect(seen.json).toMatchObject({ can_invoice: false });
      expect(seen.json.reason).toContain(words);
      const refused = await invoice(r.key);
      expect(refused.status).toBe(409);
      expect(refused.json.error.message).toContain(words);
    }
    expect((await lookup(global.key)).json.reason).toContain('2.7.1.21');
    expect(await cfdis()).toBe(before); // nothing issued for them
  });

  test("the deadline is the issuer's local date, dd/mm/aaaa, though in UTC it falls on the next day", async () => {
    const late = await createTestApp();
    const shop = await issuer(late, READY); // postal code 42501: Tiempo del Centro, UTC-6
    const r = await openReceipt(shop);
    const receipt = (await late.call('GET', `/receipts/${r.id}`, { token: shop.key })).json;
    const [y, m] = receipt.fecha.split('-').map(Number);
    const lastDay = `${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}/${String(m).padStart(2, '0')}/${y}`;
    const utcDay = receipt.expires_at.slice(0, 10);
    expect(utcDay).not.toBe(`${y}-${String(m).padStart(2, '0')}-${lastDay.slice(0, 2)}`); // the case: UTC says the 1st of the next month
    const open = await portal('GET', `/portal/${shop.tenant.id}/ticket?clave=${r.key}`, undefined, {}, late.app);
    expect(open.json.deadline).toBe(`Puedes facturarlo hasta el ${lastDay}.`);
    late.clock.advance(Date.parse(receipt.expires_at) - late.clock.now.getTime() + 1000);
    const seen = await portal('GET', `/portal/${shop.tenant.id}/ticket?clave=${r.key}`, undefined, {}, late.app);
    expect(seen.json.reason).toContain(`venció el ${lastDay}.`);
    expect(seen.json.reason).not.toContain(utcDay);
    expect(seen.json.deadline).toBeUndefined();
  });

  test('past expires_at: not invoiced, told to ask the shop', async () => {
    const late = await createTestApp();
    const shop = await issuer(late, READY);
    const r = await openReceipt(shop);
    const expires = (await late.call('GET', `/receipts/${r.id}`, { token: shop.key })).json.expires_at;
    late.clock.advance(Date.parse(expires) - late.clock.now.getTime() + 1000);
    const seen = await portal('GET', `/portal/${shop.tenant.id}/ticket?clave=${r.key}`, undefined, {}, late.app);
    expect(seen.json.can_invoice).toBe(false);
    expect(seen.json.reason).toContain('venció');
    const refused = await portal('POST', `/portal/${shop.tenant.id}/ticket/invoice`, { clave: r.key, receptor: RECEPTOR }, {}, late.app);
    expect(refused.status).toBe(409);
    expect((await late.call('GET', `/receipts/${r.id}`, { token: shop.key })).json.status).toBe('open');
  });
});

describe('downloads (issue 35)', () => {
  const from = (address: string) => ({ requestIP: () => ({ address, family: 'IPv4', port: 40000 }) });
  /** A ticket of tenant a, invoiced through the portal: its key and UUID. */
  async function invoicedTicket() {
    const r = await openReceipt(a);
    const issued = await portal('POST', `/portal/${a.tenant.id}/ticket/invoice`, { clave: r.key, receptor: RECEPTOR });
    expect(issued.status).toBe(201);
    return { key: r.key, uuid: issued.json.uuid as string };
  }
  const download = async (format: 'pdf' | 'xml', key: string, address = '203.0.113.1') =>
    await t.app.request(`/portal/${a.tenant.id}/ticket/${format}?clave=${key}&rfc=${RECEPTOR.rfc}`, {}, from(address));

  test("a flood of one ticket's PDF takes only the portal's share of the renderers: a tenant's PDF is still served", async () => {
    const ticket = await invoicedTicket();
    const theirs = await b.api('POST', '/cfdis', { body: { tipo: 'I', forma_pago: '03', receptor: ICV, conceptos: [concepto()] } as never });
    expect(theirs.status).toBe(201);
    await t.exec(sql`DELETE FROM cfdi_pdfs`); // every request below misses the cache and asks the pool
    const pool = held.pool;
    held.hold();
    try {
      // Twelve at once from twelve addresses (the 2 threads and 8 waiting places would all be the portal's without its share).
      const flood = Array.from({ length: 12 }, (_, i) => download('pdf', ticket.key, `198.51.100.${i + 1}`));
      const refused: Response[] = [];
      for (const answer of flood) answer.then((res) => res.status !== 200 && refused.push(res));
      await until(() => pool.running + pool.queued + refused.length === 12, 'every download of the flood reached the pool');
      expect([pool.running, pool.queued]).toEqual([1, 4]);
      expect(refused.map((r) => r.status)).toEqual(Array(7).fill(429));
      expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
      const served = t.call('GET', `/cfdis/${(theirs.json as { uuid: string }).uuid}/pdf`, { token: b.key });
      await until(() => pool.running === 2, "the tenant's render started");
      held.release();
      expect((await served).status).toBe(200);
      expect((await Promise.all(flood)).filter((r) => r.status === 200)).toHaveLength(5);
    } finally {
      held.release();
    }
  }, 60_000);

  test('a ticket key has 20 downloads an hour (PDF and XML together), whatever the address: then 429 naming the limit', async () => {
    const ticket = await invoicedTicket();
    const other = await invoicedTicket();
    for (let i = 0; i < 19; i++) expect((await download('xml', ticket.key, `192.0.2.${i + 1}`)).status).toBe(200);
    expect((await download('pdf', ticket.key, '192.0.2.100')).status).toBe(200);
    for (const format of ['xml', 'pdf'] as const) {
      const refused = await download(format, ticket.key, '192.0.2.200');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const { error } = (await refused.json()) as any;
      expect(error.message).toBe('Demasiadas descargas de este ticket: hasta 20 por hora');
      expect(error.details[0].field).toBe('clave');
    }
    // The key as typed differently is the same ticket; another ticket has its own budget.
    expect((await download('xml', ticket.key.toLowerCase())).status).toBe(429);
    expect((await download('pdf', other.key)).status).toBe(200);
    // A new hour, a new budget.
    t.clock.advance(3_600_000);
    expect((await download('xml', ticket.key)).status).toBe(200);
  }, 60_000);
});
