import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { findReceiptByKey } from '../../../src/invoices/receipts/service.ts';
import { createTestApp, ICV, issuer, READY, type TestApp } from '../../helpers.ts';
import { numericStrings } from '../../json-numbers.ts';

const IVA16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };
/** Three lines whose IVA, rounded line by line, sums to one cent more than the subtotal's (0.005 × 3 rounds up each time). */
const CONCEPTOS = [
  { clave_prod_serv: '50192100', cantidad: '3', clave_unidad: 'H87', descripcion: 'Botana 45 g', valor_unitario: '10.03125', impuestos: IVA16 },
  {
    clave_prod_serv: '50202306',
    cantidad: '1',
    clave_unidad: 'H87',
    descripcion: 'Refresco 600 ml',
    valor_unitario: '15.52',
    descuento: '1.00',
    impuestos: IVA16,
  },
  { clave_prod_serv: '50161813', cantidad: '1', clave_unidad: 'H87', descripcion: 'Chicle', valor_unitario: '4.3125', objeto_imp: '02', impuestos: IVA16 },
];

async function setup() {
  const t = await createTestApp();
  const reg = await issuer(t, READY);
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.call(method, path, { token: reg.key, body, headers });
  const receipt = async (over: Record<string, unknown> = {}) => {
    const res = await call('POST', '/receipts', { forma_pago: '01', conceptos: CONCEPTOS, ...over });
    expect(res.status).toBe(201);
    return res.json;
  };
  return { t, reg, call, receipt };
}

describe('receipts', () => {
  test("every amount in the receipts' and the portal's JSON answers is a JSON number, never a numeric string", async () => {
    const { t, reg, call, receipt } = await setup();
    const r = await receipt({ folio: 'T-1' });
    const withTaxes = await receipt({
      conceptos: [
        { ...CONCEPTOS[1], impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', base: '14.52', importe: '2.32' }] } },
      ],
    });
    const key = new URL(r.self_invoice_url).searchParams.get('clave')!;
    const portal = async (method: string, path: string, body?: unknown) => {
      const res = await t.app.request(`/portal/${reg.tenant.id}${path}`, {
        method,
        ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      });
      return { path, json: await res.json() };
    };
    const answers = [
      { path: 'POST /receipts', json: r },
      { path: 'POST /receipts (taxes sent)', json: withTaxes },
      { path: 'GET /receipts/{id}', json: (await call('GET', `/receipts/${r.id}`)).json },
      { path: 'GET /receipts', json: (await call('GET', '/receipts')).json },
      await portal('GET', `/ticket?clave=${key}`),
      await portal('POST', '/ticket/invoice', { clave: key, receptor: ICV }),
      await portal('GET', `/ticket?clave=${key}`),
    ];
    expect(answers[5]!.json.uuid).toBeString();
    expect(answers.flatMap((a) => numericStrings(a.json).map((where) => `${a.path}: ${where}`))).toEqual([]);
    expect(answers[0]!.json.conceptos[0]).toMatchObject({ cantidad: 3, valor_unitario: 10.03125, clave_prod_serv: '50192100' });
    expect(answers[4]!.json).toMatchObject({ total: expect.any(Number), conceptos: [{ cantidad: 3 }, { cantidad: 1 }, { cantidad: 1 }] });
  });

  test('create: open, an unguessable self-invoice link, and the totals an invoice of the same conceptos has', async () => {
    const { t, reg, call, receipt } = await setup();
    const r = await receipt();
    expect(r).toMatchObject({ folio: '1', status: 'open', forma_pago: '01', moneda: 'MXN', cfdi_id: null, invoiced_by: null });
    expect(r.id).toMatch(/^rcpt_/);
    const link = new URL(r.self_invoice_url);
    expect(link.pathname).toBe(`/portal/${reg.tenant.id}`);
    expect(link.searchParams.get('clave')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Date.parse(r.expires_at)).toBeGreaterThan(t.clock.now.getTime());

    const asInvoice = await call('POST', '/cfdis', { tipo: 'I', forma_pago: '01', receptor: ICV, conceptos: CONCEPTOS });
    expect(asInvoice.status).toBe(201);
    expect(r.subtotal).toBe(asInvoice.json.subtotal);
    expect(r.total).toBe(asInvoice.json.total);
    expect(r.descuento).toBe(1);
    const iva = r.impuestos.find((x: any) => x.kind === 'traslado' && x.impuesto === '002');
    expect(iva).toMatchObject({ tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' });

    // Folios count up, past one given by hand; a folio given twice is 409 naming it.
    expect((await receipt({ folio: '3' })).folio).toBe('3');
    expect((await receipt()).folio).toBe('2');
    expect((await receipt()).folio).toBe('4');
    const again = await call('POST', '/receipts', { forma_pago: '01', conceptos: CONCEPTOS, folio: '3' });
    expect(again.status).toBe(409);
    expect(again.json.error.details[0].field).toBe('folio');

    // The key finds the receipt in its tenant only, whatever case or hyphens it is typed with.
    const key = link.searchParams.get('clave')!;
    expect((await findReceiptByKey(t.db, reg.tenant.id, key))?.id).toBe(r.id);
    expect((await findReceiptByKey(t.db, reg.tenant.id, `${key.slice(0, 13).toLowerCase()}-${key.slice(13)}`))?.id).toBe(r.id);
    expect(await findReceiptByKey(t.db, 'ten_other', key)).toBeUndefined();
    // Another last character (never the one it has: the old '0' matched one key in 32).
    const otherLast = key.endsWith('0') ? '1' : '0';
    expect(await findReceiptByKey(t.db, reg.tenant.id, `${key.slice(0, 25)}${otherLast}`)).toBeUndefined();
    // Only the key's hash is stored.
    const [stored] = await t.query<Record<string, unknown>>(sql`select * from receipts where id = ${r.id}`);
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  test('invalid receipts: 400 naming the field and the SAT rule; nothing stored', async () => {
    const { t, call } = await setup();
    const bad = await call('POST', '/receipts', {
      forma_pago: '01',
      conceptos: [
        { ...CONCEPTOS[0], clave_prod_serv: '99999999' },
        { ...CONCEPTOS[1], descuento: '100.00' },
      ],
    });
    expect(bad.status).toBe(400);
    const fields = bad.json.error.details.map((d: any) => `${d.field} ${d.rule ?? ''}`.trim());
    expect(fields).toContain('conceptos[0].clave_prod_serv CFDI40162');
    expect(fields).toContain('conceptos[1].descuento CFDI40169');
    const por = await call('POST', '/receipts', { forma_pago: '99', conceptos: CONCEPTOS });
    expect(por.status).toBe(400);
    expect(por.json.error.details[0].field).toBe('forma_pago');
    expect((await call('POST', '/receipts', { forma_pago: '01', conceptos: [] })).status).toBe(400);
    expect((await call('POST', '/receipts', { forma_pago: '01', conceptos: CONCEPTOS, folio: 'a b' })).status).toBe(400);
    expect((await call('POST', '/receipts', { forma_pago: '01', conceptos: CONCEPTOS, extra: 1 })).status).toBe(400);
    expect((await t.query(sql`select id from receipts`)).length).toBe(0);
  });

  test('list by status and day with cursor pages; get; cancel once', async () => {
    const { t, call, receipt } = await setup();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await receipt());
    const cancelled = await call('POST', `/receipts/${made[1].id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled' });
    expect(cancelled.json.cancelled_at).toBe(t.clock.now.toISOString());
    expect((await call('POST', `/receipts/${made[1].id}/cancel`)).status).toBe(409);
    expect((await call('POST', '/receipts/rcpt_nope/cancel')).status).toBe(404);

    const first = await call('GET', '/receipts?limit=2');
    expect(first.json.data.map((r: any) => r.id)).toEqual([made[4].id, made[3].id]);
    const second = await call('GET', `/receipts?limit=2&cursor=${first.json.pagination.next_cursor}`);
    expect(second.json.data.map((r: any) => r.id)).toEqual([made[2].id, made[1].id]);
    expect((await call('GET', '/receipts?status=cancelled')).json.data.map((r: any) => r.id)).toEqual([made[1].id]);
    const day = made[0].fecha.slice(0, 10);
    expect((await call('GET', `/receipts?desde=${day}&hasta=${day}`)).json.data).toHaveLength(5);
    expect((await call('GET', '/receipts?hasta=2000-01-01')).json.data).toHaveLength(0);
    expect((await call('GET', '/receipts?desde=2026-02-30')).status).toBe(400);
    expect((await call('GET', '/receipts?status=paid')).status).toBe(400);
    const notACfdi = await call('GET', '/receipts?cfdi_id=rcpt_x');
    expect([notACfdi.status, notACfdi.json.error.details[0].field]).toEqual([400, 'query.cfdi_id']);
    expect((await call('GET', '/receipts?cfdi_id=cfdi_none')).json.data).toEqual([]);
    const got = await call('GET', `/receipts/${made[0].id}`);
    expect(got.json).toEqual(made[0]);
    expect((await call('GET', '/receipts/rcpt_nope')).status).toBe(404);
  });

  test('invoice a receipt: a CFDI of its conceptos to the customer, once; SAT receptor rules name the field', async () => {
    const { t, call, receipt } = await setup();
    const r = await receipt();
    const wrongUso = await call('POST', `/receipts/${r.id}/invoice`, { receptor: { ...ICV, uso_cfdi: 'D01' } });
    expect(wrongUso.status).toBe(400);
    expect(wrongUso.json.error.details).toContainEqual(expect.objectContaining({ field: 'receptor.uso_cfdi', rule: 'CFDI40161' }));
    const publico = await call('POST', `/receipts/${r.id}/invoice`, {
      receptor: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
    });
    expect(publico.status).toBe(400);
    expect(publico.json.error.details[0].field).toBe('receptor.rfc');
    expect((await call('GET', `/receipts/${r.id}`)).json.status).toBe('open');
    expect((await t.query(sql`select id from cfdis`)).length).toBe(0);

    // Two at once: one CFDI.
    const [a, b] = await Promise.all([
      call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV }),
      call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const cfdi = a.status === 201 ? a.json : b.json;
    expect(cfdi).toMatchObject({ status: 'vigente', total: r.total, subtotal: r.subtotal, receptor: { rfc: ICV.rfc, nombre: ICV.nombre } });
    expect(cfdi.metadata).toEqual({ receipt_id: r.id, receipt_folio: r.folio });
    const after = (await call('GET', `/receipts/${r.id}`)).json;
    expect(after).toMatchObject({ status: 'invoiced', invoiced_by: 'self', cfdi_id: cfdi.id });
    const twice = await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV });
    expect(twice.status).toBe(409);
    expect(twice.json.error.details[0].issue).toContain(cfdi.id);
    expect((await t.query(sql`select id from cfdis`)).length).toBe(1);
    expect((await call('POST', `/receipts/${r.id}/cancel`)).status).toBe(409);

    const gone = await receipt();
    await call('POST', `/receipts/${gone.id}/cancel`);
    expect((await call('POST', `/receipts/${gone.id}/invoice`, { receptor: ICV })).status).toBe(409);

    // Past the end of its month it goes only into a global invoice.
    const late = await receipt();
    t.clock.advance(Date.parse(late.expires_at) - t.clock.now.getTime() + 1000);
    const expired = await call('POST', `/receipts/${late.id}/invoice`, { receptor: ICV });
    expect(expired.status).toBe(409);
    expect(expired.json.error.details[0].field).toBe('expires_at');
  });

  test('email_to without SMTP_URL: 400 naming email_to and the receipt stays open', async () => {
    const { call, receipt } = await setup();
    const r = await receipt();
    const res = await call('POST', `/receipts/${r.id}/invoice`, { receptor: ICV, email_to: ['a@example.com'] });
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([{ field: 'email_to', issue: expect.stringContaining('this server has no SMTP configured') }]);
    expect((await call('GET', `/receipts/${r.id}`)).json.status).toBe('open');
  });

  test("another tenant's receipts are not found, and its environment's neither", async () => {
    const { t, receipt } = await setup();
    const r = await receipt();
    const other = await issuer(t, READY);
    for (const [method, path, body] of [
      ['GET', `/receipts/${r.id}`],
      ['POST', `/receipts/${r.id}/cancel`],
      ['POST', `/receipts/${r.id}/invoice`, { receptor: ICV }],
    ] as const) {
      expect((await t.call(method, path, { token: other.key, body })).status).toBe(404);
    }
    expect((await t.call('GET', '/receipts', { token: other.key })).json.data).toEqual([]);
  });
});

test('a receptor with characters the XML cannot carry is refused by the shared text check, naming the field', async () => {
  const { call, receipt } = await setup();
  const r = await receipt();
  for (const nombre of ['INMOBILIARIA|CVA', 'INMOBILIARIA\u0007CVA', 'INMOBILIARIA\u202eCVA']) {
    const res = await call('POST', `/receipts/${r.id}/invoice`, { receptor: { ...ICV, nombre } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: any) => d.field)).toContain('receptor.nombre');
  }
  expect((await call('GET', `/receipts/${r.id}`)).json.status).toBe('open');
});

/**
 * Issue 35: a request's Host header is the client's to write (Bun.serve builds the request URL from it), so nothing
 * the API answers is built from it: receipts' links come from PUBLIC_BASE_URL, or are null without it.
 */
describe('a forged Host header', () => {
  const FORGED = 'evil.example';
  const forged = (t: TestApp, method: string, path: string, token?: string, body?: unknown) =>
    Promise.resolve(
      t.app.request(`http://${FORGED}${path}`, {
        method,
        headers: {
          host: FORGED,
          accept: 'text/html,application/json',
          ...(token && { authorization: `Bearer ${token}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    ).then(async (res) => ({ status: res.status, text: `${[...res.headers].join('\n')}\n${await res.text()}` }));

  test('never appears in a receipt link (create, get, list, cancel): PUBLIC_BASE_URL does', async () => {
    const t = await createTestApp({ publicBaseUrl: 'https://facturas.example.com' });
    const reg = await issuer(t, READY);
    const created = await forged(t, 'POST', '/api/v1/receipts', reg.key, { forma_pago: '01', conceptos: CONCEPTOS });
    expect(created.status).toBe(201);
    const id = JSON.parse(created.text.slice(created.text.indexOf('\n{') + 1)).id;
    const answers = [
      created,
      await forged(t, 'GET', `/api/v1/receipts/${id}`, reg.key),
      await forged(t, 'GET', '/api/v1/receipts', reg.key),
      await forged(t, 'POST', `/api/v1/receipts/${id}/cancel`, reg.key),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200 + (a === created ? 1 : 0));
      expect(a.text).not.toContain(FORGED);
      expect(a.text).toContain(`https://facturas.example.com/portal/${reg.tenant.id}?clave=`);
    }
  });

  test('without PUBLIC_BASE_URL a receipt has no link (null), not one to the forged host', async () => {
    const t = await createTestApp({ publicBaseUrl: undefined });
    const reg = await issuer(t, READY);
    const created = await forged(t, 'POST', '/api/v1/receipts', reg.key, { forma_pago: '01', conceptos: CONCEPTOS });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(FORGED);
    const list = await t.call('GET', '/receipts', { token: reg.key });
    expect(list.json.data[0].self_invoice_url).toBeNull();
    expect((await t.call('GET', `/receipts/${list.json.data[0].id}`, { token: reg.key })).json.self_invoice_url).toBeNull();
  });

  test('never appears in any other answer: the portal page, the OpenAPI document, the root redirect, errors', async () => {
    const t = await createTestApp();
    const reg = await issuer(t, READY);
    for (const [method, path, token] of [
      ['GET', `/portal/${reg.tenant.id}`],
      ['GET', `/portal/${reg.tenant.id}/ticket?clave=0000`],
      ['GET', '/api/v1/openapi.json'],
      ['GET', '/'],
      ['GET', '/api/v1/health'],
      ['GET', '/api/v1/nowhere', reg.key],
      ['GET', '/cfdis', reg.key],
    ] as const) {
      const a = await forged(t, method, path, token);
      if (a.text.includes(FORGED)) throw new Error(`${method} ${path} answered with the forged host: ${a.text.slice(0, 500)}`);
    }
  });
});
