import { describe, expect, test } from 'bun:test';
import { createTestApp, ICV, ingreso, issuer, READY } from '../helpers.ts';
import { signIn } from './sign-in.ts';

/** Issue 40, build item 3 over plain HTTP: the issue form posted without script (Ingreso, Egreso, Pago), its errors beside the fields. */
const t = await createTestApp();
const a = await issuer(t, READY);
const admin = await signIn(t.app, a.email, a.password);
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
const csrf = csrfOf(admin.html);

const get = (path: string, cookie = admin.cookie) => t.app.request(path, { headers: { cookie } });
const post = (path: string, fields: Record<string, string>, cookie = admin.cookie) =>
  t.app.request(path, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, ...fields }),
  });
const count = async () => (await t.call('GET', '/cfdis?limit=100', { token: a.key })).json.data.length as number;

/** The form's fields for an Ingreso to ICV of one concepto of 100 + IVA 16 %, overridable by input name. */
const ingresoForm = (over: Record<string, string> = {}) => ({
  tipo: 'I',
  forma_pago: '03',
  metodo_pago: 'PUE',
  moneda: 'MXN',
  receptor_id: '',
  'receptor.rfc': ICV.rfc,
  'receptor.nombre': ICV.nombre,
  'receptor.regimen_fiscal': ICV.regimen_fiscal,
  'receptor.domicilio_fiscal': ICV.domicilio_fiscal,
  'receptor.uso_cfdi': ICV.uso_cfdi,
  'cfdi_relacionados[0].tipo_relacion': '01',
  'cfdi_relacionados[0].uuids': '',
  'conceptos[0].clave_prod_serv': '84111506',
  'conceptos[0].clave_unidad': 'E48',
  'conceptos[0].descripcion': 'Servicio de facturación',
  'conceptos[0].cantidad': '2',
  'conceptos[0].valor_unitario': '100.00',
  'conceptos[0].descuento': '',
  'conceptos[0].objeto_imp': '02',
  'conceptos[0].iva': '16',
  'conceptos[0].ret_isr': '',
  'conceptos[0].ret_iva': '',
  op: 'issue',
  ...over,
});

/** The error shown beside an input (its id is f- and the name's punctuation as dashes), and that the input points to it. */
function besideField(html: string, name: string): string | undefined {
  const id = `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const note = new RegExp(`<span class="field-error" id="e-${id}">([^<]+)</span>`).exec(html)?.[1];
  if (note) expect(html).toMatch(new RegExp(`id="${id}" name="${name.replace(/[[\].]/g, '\\$&')}" aria-invalid="true" aria-describedby="e-${id}"`));
  return note;
}

async function issuedFrom(res: Response) {
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/console\/invoices\/cfdi_[0-9a-zA-Z]+$/);
  const id = location.split('/').pop()!;
  const cfdi = (await t.call('GET', `/cfdis/${id}`, { token: a.key })).json;
  expect(cfdi.status).toBe('vigente');
  expect((await get(location)).status).toBe(200);
  return cfdi;
}

describe('the issue form over HTTP (no script)', () => {
  test('the form: offered to an ADMIN (nav entry, its own script file), not to a VIEWER', async () => {
    const res = await get('/console/invoices/new');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('href="/console/invoices/new" aria-current="page"');
    expect(html).toContain('name="conceptos[0].clave_prod_serv"');
    expect(html).toContain('list="dl-productos-servicios"');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/);
    const script = /<script src="(\/console\/assets\/console-issue-[0-9a-f]{12}\.js)"/.exec(html)![1]!;
    const asset = await t.app.request(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
    expect(await asset.text()).toContain('/console/invoices/new/validate');

    // Every input has its label; in English too.
    const ids = [...html.matchAll(/<(?:input|select) id="([^"]+)"/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(20);
    for (const id of ids) expect(html).toContain(`<label for="${id}">`);
    const english = await (await get('/console/invoices/new', `${admin.cookie}; console_lang=en`)).text();
    expect(english).toContain('<h1>Issue invoice</h1>');
    expect(english).toContain('Product or service key');

    const viewer = await a.userWithRole('VIEWER');
    const v = await signIn(t.app, viewer.email, viewer.password);
    expect(v.html).not.toContain('href="/console/invoices/new"');
    expect((await get('/console/invoices/new', v.cookie)).status).toBe(403);
    expect(admin.html).toContain('href="/console/invoices/new"');
  });

  test('an Ingreso with a mistake: 400, the error beside its field, nothing stored; fixed: 303 to its detail, vigente', async () => {
    const before = await count();
    const bad = await post('/console/invoices/new', ingresoForm({ 'conceptos[0].clave_prod_serv': '8411150' }));
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(besideField(html, 'conceptos[0].clave_prod_serv')).toContain('8-digit');
    // The values typed are kept.
    expect(html).toContain('value="Servicio de facturación"');
    expect(await count()).toBe(before);

    // A SAT rule (not the schema's): a key not in c_ClaveProdServ, and a receptor RFC that is not one.
    const rules = await post('/console/invoices/new', ingresoForm({ 'conceptos[0].clave_prod_serv': '99999999', 'receptor.rfc': 'NOT-AN-RFC' }));
    expect(rules.status).toBe(400);
    const ruled = await rules.text();
    expect(besideField(ruled, 'conceptos[0].clave_prod_serv')).toBeTruthy();
    expect(besideField(ruled, 'receptor.rfc')).toBeTruthy();
    expect(await count()).toBe(before);

    const cfdi = await issuedFrom(await post('/console/invoices/new', ingresoForm()));
    expect(cfdi.tipo).toBe('I');
    expect(cfdi.receptor.rfc).toBe(ICV.rfc);
    expect(cfdi.total).toBe(232);
    expect(await count()).toBe(before + 1);
  });

  test("a second send of the same page's form (a double click, a resend) gets the first invoice, not another", async () => {
    const page = await (await get('/console/invoices/new')).text();
    const key = /name="issue_key" value="([^"]+)"/.exec(page)![1]!;
    // Each rendering has its own key.
    expect(/name="issue_key" value="([^"]+)"/.exec(await (await get('/console/invoices/new')).text())![1]).not.toBe(key);
    const before = await count();
    const first = await post('/console/invoices/new', ingresoForm({ issue_key: key }));
    const second = await post('/console/invoices/new', ingresoForm({ issue_key: key }));
    expect(first.status).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(await count()).toBe(before + 1);
  });

  test('taxes per concepto: IVA 8 %, exento, ISR and IVA withheld; rows added and removed without script', async () => {
    const added = await post('/console/invoices/new', ingresoForm({ op: 'add' }));
    expect(added.status).toBe(200);
    const two = await added.text();
    expect(two).toContain('name="conceptos[1].clave_prod_serv"');
    expect(two).toContain('value="Servicio de facturación"');
    const removed = await (await post('/console/invoices/new', ingresoForm({ op: 'remove:0', 'conceptos[1].descripcion': 'Segundo' }))).text();
    expect(removed).toContain('value="Segundo"');
    expect(removed).not.toContain('name="conceptos[1].clave_prod_serv"');

    const cfdi = await issuedFrom(
      await post(
        '/console/invoices/new',
        ingresoForm({
          'receptor.rfc': 'EKU9003173C9',
          'receptor.nombre': 'ESCUELA KEMPER URGATE',
          'receptor.domicilio_fiscal': '42501',
          'conceptos[0].iva': '8',
          'conceptos[0].ret_isr': '0.100000',
          'conceptos[0].ret_iva': '0.106667',
          'conceptos[1].clave_prod_serv': '84111506',
          'conceptos[1].clave_unidad': 'E48',
          'conceptos[1].descripcion': 'Exento',
          'conceptos[1].cantidad': '1',
          'conceptos[1].valor_unitario': '50',
          'conceptos[1].objeto_imp': '02',
          'conceptos[1].iva': 'exento',
        }),
      ),
    );
    expect(cfdi.subtotal).toBe(250);
    expect(cfdi.total_impuestos_trasladados).toBe(16);
    expect(cfdi.total_impuestos_retenidos).toBe(41.33);
  });

  test('an Egreso related to an Ingreso, and a Pago of a PPD Ingreso, from the form', async () => {
    const ingresoRes = await t.call('POST', '/cfdis', { token: a.key, body: ingreso() });
    expect(ingresoRes.status).toBe(201);
    const egresoFields = ingresoForm({ tipo: 'E', 'receptor.uso_cfdi': 'G02', 'conceptos[0].descripcion': 'Bonificación', 'conceptos[0].cantidad': '1' });
    // A related UUID that is not one: beside the related UUIDs, nothing stored.
    const before = await count();
    const missing = await post('/console/invoices/new', { ...egresoFields, 'cfdi_relacionados[0].uuids': 'not-a-uuid' });
    expect(missing.status).toBe(400);
    expect(besideField(await missing.text(), 'cfdi_relacionados[0].uuids')).toContain('UUID');
    expect(await count()).toBe(before);
    const egreso = await issuedFrom(await post('/console/invoices/new', { ...egresoFields, 'cfdi_relacionados[0].uuids': ingresoRes.json.uuid }));
    expect(egreso.tipo).toBe('E');

    const ppd = await t.call('POST', '/cfdis', { token: a.key, body: ingreso({ metodo_pago: 'PPD', forma_pago: '99' }) });
    expect(ppd.status).toBe(201);
    const past = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const pagoFields = {
      tipo: 'P',
      'receptor.rfc': ICV.rfc,
      'receptor.nombre': ICV.nombre,
      'receptor.regimen_fiscal': ICV.regimen_fiscal,
      'receptor.domicilio_fiscal': ICV.domicilio_fiscal,
      'receptor.uso_cfdi': 'CP01',
      'pagos[0].fecha_pago': past,
      'pagos[0].forma_pago': '03',
      'pagos[0].monto': '',
      'pagos[0].documentos[0].documento': ppd.json.id,
      'pagos[0].documentos[0].imp_pagado': '50.00',
      'pagos[0].documentos[0].num_parcialidad': '',
      op: 'issue',
    };
    const wrong = await post('/console/invoices/new', { ...pagoFields, 'pagos[0].documentos[0].imp_pagado': 'fifty' });
    expect(wrong.status).toBe(400);
    expect(besideField(await wrong.text(), 'pagos[0].documentos[0].imp_pagado')).toBeTruthy();
    const pago = await issuedFrom(await post('/console/invoices/new', pagoFields));
    expect(pago.tipo).toBe('P');
    expect(pago.pagos[0].monto).toBe(50);
    expect(pago.pagos[0].documentos[0].imp_pagado).toBe(50);
  });

  test('the customer picked from the clients', async () => {
    const client = await t.call('POST', '/clients', { token: a.key, body: { ...ICV, nombre: 'CLIENTE <script>alert(1)</script>' } });
    expect(client.status).toBe(201);
    const form = await (await get('/console/invoices/new')).text();
    expect(form).toContain(`<option value="${client.json.id}">`);
    expect(form).not.toContain('<script>alert(1)</script>');
    expect(form).toContain('CLIENTE &#60;script&#62;');
    const found = await (await get('/console/invoices/new/clients?q=CLIENTE')).json();
    expect(found.data.map((c: { id: string }) => c.id)).toContain(client.json.id);
    const cfdi = await issuedFrom(await post('/console/invoices/new', ingresoForm({ receptor_id: client.json.id, 'receptor.rfc': '' })));
    expect(cfdi.receptor.nombre).toBe('CLIENTE <script>alert(1)</script>');
  });

  test('typed text comes back escaped', async () => {
    const res = await post('/console/invoices/new', ingresoForm({ 'receptor.nombre': '"><script>alert(1)</script>', 'conceptos[0].clave_prod_serv': 'x' }));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
  });

  test('a VIEWER: its POST (with its own valid token) is refused by the API, nothing stored', async () => {
    const viewer = await a.userWithRole('VIEWER');
    const v = await signIn(t.app, viewer.email, viewer.password);
    const before = await count();
    const res = await t.app.request('/console/invoices/new', {
      method: 'POST',
      headers: { cookie: v.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...ingresoForm(), csrf: csrfOf(v.html) }),
    });
    expect(res.status).toBe(403);
    expect(await count()).toBe(before);
    // Without the form's token: 403 before the API is asked.
    expect((await post('/console/invoices/new', { ...ingresoForm(), csrf: 'x'.repeat(43) })).status).toBe(403);
  });

  test('odd input never answers 500: unknown rows and ops, bad numbers, an unknown tipo, a foreign client id', async () => {
    const before = await count();
    const odd: Record<string, string>[] = [
      { op: 'remove:abc' },
      { op: 'remove:99' },
      { op: 'remove-doc:0' },
      { op: 'nothing' },
      { tipo: 'Z' },
      { tipo: 'P' },
      { 'conceptos[999].clave_prod_serv': '84111506', 'conceptos[x].descripcion': 'y', 'conceptos[0].nope': '1' },
      { 'conceptos[0].cantidad': '-1', 'conceptos[0].valor_unitario': '1e309', 'conceptos[0].iva': 'many', 'conceptos[0].ret_isr': 'abc' },
      { receptor_id: 'cli_doesnotexist' },
      { 'pagos[0].documentos[0].num_parcialidad': 'abc', tipo: 'P' },
      { 'receptor.nombre': 'a'.repeat(5000), 'conceptos[0].descripcion': '\u0000|\u202e' },
    ];
    for (const over of odd) {
      const res = await post('/console/invoices/new', ingresoForm(over));
      expect({ over, status: res.status }).toEqual({ over, status: res.status < 500 ? res.status : 0 });
      const verdict = await post('/console/invoices/new/validate', ingresoForm(over));
      expect({ over, status: verdict.status }).toEqual({ over, status: verdict.status < 500 ? verdict.status : 0 });
    }
    for (const q of ['', 'x'.repeat(300), '%', '\u0000', 'é ñ']) {
      for (const path of ['/console/catalogos/productos-servicios', '/console/catalogos/unidades', '/console/invoices/new/clients']) {
        const res = await get(`${path}?q=${encodeURIComponent(q)}`);
        expect({ path, q, status: res.status }).toEqual({ path, q, status: res.status < 500 ? res.status : 0 });
      }
    }
    expect(await count()).toBe(before);
    const unknownTipo = await post('/console/invoices/new', ingresoForm({ tipo: 'N' }));
    expect(unknownTipo.status).toBe(400);
    expect(besideField(await unknownTipo.text(), 'tipo')).toContain('I, E, P');
    // Another tenant's client: the API's 404 names receptor_id, beside the client picker; nothing is stored.
    const b = await issuer(t, READY);
    const theirs = await t.call('POST', '/clients', { token: b.key, body: ICV });
    const foreign = await post('/console/invoices/new', ingresoForm({ receptor_id: theirs.json.id }));
    expect(foreign.status).toBe(400);
    expect(besideField(await foreign.text(), 'receptor_id')).toContain('no client');
    expect(await count()).toBe(before);
  });

  test('the JSON routes of the script: validation with the input of each error; catalog search as the user', async () => {
    const verdict = await (await post('/console/invoices/new/validate', ingresoForm({ 'conceptos[0].clave_prod_serv': '99999999' }))).json();
    expect(verdict.valid).toBe(false);
    expect(verdict.errors).toContainEqual(expect.objectContaining({ input: 'conceptos[0].clave_prod_serv' }));
    expect((await (await post('/console/invoices/new/validate', ingresoForm())).json()).valid).toBe(true);

    const search = await get('/console/catalogos/productos-servicios?q=facturacion');
    expect(search.status).toBe(200);
    const found = (await search.json()).data as { clave: string; descripcion: string }[];
    expect(found.length).toBeGreaterThan(0);
    const digits = (await (await get('/console/catalogos/productos-servicios?q=8411150')).json()).data as { clave: string }[];
    expect(digits.map((e) => e.clave)).toContain('84111506');
    const units = (await (await get('/console/catalogos/unidades?q=E48')).json()).data as { clave: string }[];
    expect(units.map((e) => e.clave)).toContain('E48');
    const byWord = (await (await get('/console/catalogos/unidades?q=servicio')).json()).data as { clave: string }[];
    expect(byWord.map((e) => e.clave)).toContain('E48');
    const cp = (await (await get('/console/catalogos/codigos-postales?q=4250')).json()).data as { clave: string }[];
    expect(cp.map((e) => e.clave)).toContain('42501');
    expect((await get('/console/catalogos/paises')).status).toBe(404);
    expect((await t.app.request('/console/catalogos/unidades?q=E48')).status).toBe(303);
  });
});
