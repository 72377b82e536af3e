import { describe, expect, test } from 'bun:test';
import { getClientReceptor } from '../../../src/invoices/clients/service.ts';
import type { components } from '../../../clients/typescript/src/index.ts';
import { createTestApp, expectStatus, issuer, TENANTS } from '../../helpers.ts';

const t = await createTestApp();

/** Persona moral 601 with G03: the everyday client. */
const MORAL = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'G03' };
const FISICA = { rfc: 'FUNK671228PH6', nombre: 'KARLA FUENTE NOLASCO', regimen_fiscal: '612', domicilio_fiscal: '01000', uso_cfdi: 'D01' };
/** The EKU tenant issues from 42501, so a generic RFC's domicilio fiscal is 42501 (CFDI40149). */
const PUBLICO = { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', domicilio_fiscal: '42501', uso_cfdi: 'S01' };
const EXTRANJERO = {
  rfc: 'XEXX010101000',
  nombre: 'ACME INC',
  regimen_fiscal: '616',
  domicilio_fiscal: '42501',
  uso_cfdi: 'S01',
  residencia_fiscal: 'USA',
  num_reg_id_trib: '123456789',
  email: 'billing@acme.example',
};

const tenant = () => issuer(t);

type ClientCreate = components['schemas']['ClientCreate'];

const create = async (token: string, body: ClientCreate, headers: Record<string, string> = {}) =>
  expectStatus(await t.api('POST', '/clients', { token, body, headers }), 201).json;

const rulesOf = (res: { json: any }) => res.json.error.details.map((d: any) => [d.field, d.rule]);

describe('POST /clients', () => {
  test('creates a persona moral and answers the record', async () => {
    const { token } = await tenant();
    const res = await t.call('POST', '/clients', { token, body: MORAL });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ ...MORAL, email: null, residencia_fiscal: null, num_reg_id_trib: null });
    expect(res.json.id).toMatch(/^cli_[0-9a-z]{26}$/);
    expect(res.json.created_at).toBe(res.json.updated_at);
    expect((await t.call('GET', `/clients/${res.json.id}`, { token })).json).toEqual(res.json);
  });

  test('persona física 612 with D01, público en general, and a foreigner with its tax id', async () => {
    const { token } = await tenant();
    expect(await create(token, FISICA)).toMatchObject(FISICA);
    expect(await create(token, PUBLICO)).toMatchObject(PUBLICO);
    expect(await create(token, EXTRANJERO)).toMatchObject(EXTRANJERO);
  });

  test('upper-cases RFC and catalog keys, lower-cases the email, trims the name', async () => {
    const { token } = await tenant();
    const res = await create(token, { ...MORAL, rfc: ' eku9003173c9 ', uso_cfdi: 'g03', nombre: '  ESCUELA KEMPER URGATE ', email: 'Ana@Example.COM' });
    expect(res).toMatchObject({ rfc: 'EKU9003173C9', uso_cfdi: 'G03', nombre: 'ESCUELA KEMPER URGATE', email: 'ana@example.com' });
  });

  test('the same RFC may be registered twice (generic RFCs repeat)', async () => {
    const { token } = await tenant();
    await create(token, PUBLICO);
    await create(token, { ...PUBLICO, nombre: 'JUAN PEREZ' });
  });

  test('shape errors: 400 naming each field', async () => {
    const { token } = await tenant();
    const missing = await t.call('POST', '/clients', { token, body: { rfc: 'EKU9003173C9' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.details.map((d: any) => d.field).sort()).toEqual(['domicilio_fiscal', 'nombre', 'regimen_fiscal', 'uso_cfdi']);
    const odd = await t.call('POST', '/clients', { token, body: { ...MORAL, email: 'nope', nombre: 'x'.repeat(301), extra: 1 } });
    expect(odd.status).toBe(400);
    expect(odd.json.error.details.map((d: any) => d.field).sort()).toEqual(['email', 'extra', 'nombre']);
    const types = await t.call('POST', '/clients', { token, body: { ...MORAL, rfc: 123, uso_cfdi: null } });
    expect(types.json.error.details.map((d: any) => d.field).sort()).toEqual(['rfc', 'uso_cfdi']);
  });

  const cases: [string, Record<string, unknown>, [string, string | undefined][]][] = [
    ['an invalid RFC', { ...MORAL, rfc: 'EKU9013173C9' }, [['rfc', undefined]]],
    ['"PUBLICO EN GENERAL" with a real RFC', { ...MORAL, nombre: 'PUBLICO EN GENERAL' }, [['rfc', 'CFDI40146']]],
    ["XAXX with another postal code than the issuer's", { ...PUBLICO, domicilio_fiscal: '01000' }, [['domicilio_fiscal', 'CFDI40149']]],
    ['residencia_fiscal outside c_Pais', { ...EXTRANJERO, residencia_fiscal: 'XYZ' }, [['residencia_fiscal', 'CFDI40150']]],
    ['residencia_fiscal for a Mexican RFC', { ...MORAL, residencia_fiscal: 'USA' }, [['residencia_fiscal', 'CFDI40151']]],
    ['residencia_fiscal MEX', { ...EXTRANJERO, residencia_fiscal: 'MEX', num_reg_id_trib: undefined }, [['residencia_fiscal', 'CFDI40152']]],
    ['num_reg_id_trib without residencia_fiscal', { ...EXTRANJERO, residencia_fiscal: undefined }, [['residencia_fiscal', 'CFDI40153']]],
    ['num_reg_id_trib for a Mexican RFC', { ...MORAL, num_reg_id_trib: '123456789' }, [['num_reg_id_trib', 'CFDI40154']]],
    ['num_reg_id_trib not in the USA format', { ...EXTRANJERO, num_reg_id_trib: '12-345' }, [['num_reg_id_trib', 'CFDI40156']]],
    ['a régimen outside c_RegimenFiscal', { ...MORAL, regimen_fiscal: '999' }, [['regimen_fiscal', 'CFDI40157']]],
    ['a persona física régimen for a persona moral', { ...MORAL, regimen_fiscal: '612' }, [['regimen_fiscal', 'CFDI40158']]],
    ['a generic RFC with a régimen other than 616', { ...PUBLICO, regimen_fiscal: '612', uso_cfdi: 'G03' }, [['regimen_fiscal', 'CFDI40159']]],
    ['a use outside c_UsoCFDI', { ...MORAL, uso_cfdi: 'Z99' }, [['uso_cfdi', 'CFDI40160']]],
    ['D01 for a persona moral', { ...MORAL, uso_cfdi: 'D01' }, [['uso_cfdi', 'CFDI40161']]],
    ['G03 for público en general (616)', { ...PUBLICO, uso_cfdi: 'G03' }, [['uso_cfdi', 'CFDI40161']]],
    ['a postal code outside c_CodigoPostal', { ...MORAL, domicilio_fiscal: '00000' }, [['domicilio_fiscal', 'CFDI40147']]],
    ['a postal code that is not 5 digits', { ...MORAL, domicilio_fiscal: '4250' }, [['domicilio_fiscal', undefined]]],
    ['a name with "|"', { ...MORAL, nombre: 'ESCUELA | KEMPER' }, [['nombre', undefined]]],
  ];
  for (const [label, body, expected] of cases) {
    test(`SAT rule: ${label} → 400 naming the field and rule`, async () => {
      const { token } = await tenant();
      const res = await t.call('POST', '/clients', { token, body });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('HTTP_400');
      expect(rulesOf(res)).toEqual(expected);
      for (const d of res.json.error.details) expect(d.issue.length).toBeGreaterThan(5);
    });
  }

  test('every broken rule is reported at once', async () => {
    const { token } = await tenant();
    const res = await t.call('POST', '/clients', { token, body: { ...PUBLICO, regimen_fiscal: '601', domicilio_fiscal: '01000', residencia_fiscal: 'USA' } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: any) => d.rule).sort()).toEqual(['CFDI40149', 'CFDI40151', 'CFDI40159']);
  });

  test('nothing is stored when validation fails', async () => {
    const { token } = await tenant();
    await t.call('POST', '/clients', { token, body: { ...MORAL, uso_cfdi: 'D01' } });
    expect((await t.call('GET', '/clients', { token })).json.data).toEqual([]);
  });
});

describe('GET /clients', () => {
  test('pages by cursor without repeats, newest last', async () => {
    const { token } = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await create(token, { ...MORAL, nombre: `CLIENTE ${i}` })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.call('GET', `/clients?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token });
      expect(res.status).toBe(200);
      expect(res.json.pagination.limit).toBe(3);
      seen.push(...res.json.data.map((c: any) => c.id));
      cursor = res.json.pagination.next_cursor;
      expect(res.json.pagination.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });

  test('invalid cursor and limit are 400', async () => {
    const { token } = await tenant();
    const bad = await t.call('GET', '/clients?cursor=garbage', { token });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('cursor');
    expect((await t.call('GET', '/clients?limit=0', { token })).status).toBe(400);
    expect((await t.call('GET', `/clients?q=${'x'.repeat(101)}`, { token })).status).toBe(400);
  });

  test('q matches an RFC prefix or part of the name, ignoring case and accents', async () => {
    const { token } = await tenant();
    const kemper = await create(token, MORAL);
    const karla = await create(token, FISICA);
    const nandu = await create(token, { ...MORAL, rfc: 'OÑO120726RX3', nombre: 'PINGÜINO & ÑANDÚ 50% DESCUENTO' });
    const search = async (q: string) => (await t.call('GET', `/clients?q=${encodeURIComponent(q)}`, { token })).json.data.map((c: any) => c.id);
    expect(await search('eku9')).toEqual([kemper.id]);
    expect(await search('FUNK671228PH6')).toEqual([karla.id]);
    expect(await search('kemper')).toEqual([kemper.id]);
    expect(await search('Fuente Nol')).toEqual([karla.id]);
    expect(await search('nandu')).toEqual([nandu.id]);
    expect(await search('Pingüino')).toEqual([nandu.id]);
    expect(await search('oño')).toEqual([nandu.id]);
    expect(await search('50%')).toEqual([nandu.id]);
    expect(await search('%')).toEqual([nandu.id]); // a literal percent sign, not a wildcard
    expect(await search('_')).toEqual([]);
    expect(await search('e')).toEqual([kemper.id, karla.id, nandu.id]);
    expect(await search('9003')).toEqual([]); // RFC prefix, not substring
    expect(await search('')).toEqual([kemper.id, karla.id, nandu.id]);
    expect(await search('zzz')).toEqual([]);
  });

  test('q pages too', async () => {
    const { token } = await tenant();
    for (let i = 0; i < 3; i++) await create(token, { ...MORAL, nombre: `ALFA ${i}` });
    await create(token, { ...MORAL, nombre: 'BETA' });
    const first = await t.call('GET', '/clients?q=alfa&limit=2', { token });
    expect(first.json.data).toHaveLength(2);
    const second = await t.call('GET', `/clients?q=alfa&limit=2&cursor=${first.json.pagination.next_cursor}`, { token });
    expect(second.json.data.map((c: any) => c.nombre)).toEqual(['ALFA 2']);
    expect(second.json.pagination.has_more).toBe(false);
  });
});

describe('PATCH /clients/:id', () => {
  test('changes fields; the search follows the new name', async () => {
    const { token } = await tenant();
    const c = await create(token, MORAL);
    t.clock.advance(1000);
    const res = await t.call('PATCH', `/clients/${c.id}`, { token, body: { nombre: 'ESCUELA NUEVA', uso_cfdi: 'G01', email: 'pagos@escuela.example' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ...MORAL, nombre: 'ESCUELA NUEVA', uso_cfdi: 'G01', email: 'pagos@escuela.example', created_at: c.created_at });
    expect(res.json.updated_at > c.updated_at).toBe(true);
    expect((await t.call('GET', '/clients?q=nueva', { token })).json.data.map((x: any) => x.id)).toEqual([c.id]);
    expect((await t.call('GET', '/clients?q=kemper', { token })).json.data).toEqual([]);
  });

  test('the result is checked as a whole, and nothing changes when it fails', async () => {
    const { token } = await tenant();
    const c = await create(token, MORAL);
    const res = await t.call('PATCH', `/clients/${c.id}`, { token, body: { rfc: 'FUNK671228PH6' } });
    expect(res.status).toBe(400);
    expect(rulesOf(res)).toEqual([['regimen_fiscal', 'CFDI40158']]);
    expect((await t.call('GET', `/clients/${c.id}`, { token })).json).toEqual(c);
    const ok = await t.call('PATCH', `/clients/${c.id}`, { token, body: { rfc: 'FUNK671228PH6', regimen_fiscal: '612', uso_cfdi: 'D01' } });
    expect(ok.status).toBe(200);
  });

  test('null clears optional fields: a foreigner becomes a Mexican taxpayer', async () => {
    const { token } = await tenant();
    const c = await create(token, EXTRANJERO);
    const keep = await t.call('PATCH', `/clients/${c.id}`, { token, body: MORAL });
    expect(rulesOf(keep).sort()).toEqual([
      ['num_reg_id_trib', 'CFDI40154'],
      ['residencia_fiscal', 'CFDI40151'],
    ]);
    const res = await t.call('PATCH', `/clients/${c.id}`, { token, body: { ...MORAL, residencia_fiscal: null, num_reg_id_trib: null, email: null } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ...MORAL, residencia_fiscal: null, num_reg_id_trib: null, email: null });
  });

  test('shape errors are 400; required fields cannot be null', async () => {
    const { token } = await tenant();
    const c = await create(token, MORAL);
    const res = await t.call('PATCH', `/clients/${c.id}`, { token, body: { nombre: null, foo: 1 } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: any) => d.field).sort()).toEqual(['foo', 'nombre']);
  });
});

describe('DELETE /clients/:id', () => {
  test('deletes; afterwards 404', async () => {
    const { token } = await tenant();
    const c = await create(token, MORAL);
    const res = await t.call('DELETE', `/clients/${c.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: c.id, deleted: true });
    expect((await t.call('GET', `/clients/${c.id}`, { token })).status).toBe(404);
    expect((await t.call('DELETE', `/clients/${c.id}`, { token })).status).toBe(404);
    expect((await t.call('PATCH', `/clients/${c.id}`, { token, body: { nombre: 'X' } })).status).toBe(404);
  });
});

describe('roles, tenants and environments', () => {
  test('VIEWER reads but cannot write (403); OPERATOR and an API key write', async () => {
    const admin = await tenant();
    const c = await create(admin.token, MORAL);
    const viewer = await admin.userWithRole('VIEWER');
    expect((await t.call('GET', '/clients', { token: viewer.token })).json.data.map((x: any) => x.id)).toEqual([c.id]);
    expect((await t.call('GET', `/clients/${c.id}`, { token: viewer.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/clients', MORAL],
      ['PATCH', `/clients/${c.id}`, { nombre: 'X' }],
      ['DELETE', `/clients/${c.id}`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: viewer.token, body });
      expect(res.status).toBe(403);
      expect(res.json.error.details[0].field).toBe('role');
    }
    const operator = await admin.userWithRole('OPERATOR');
    const mine = await create(operator.token, FISICA);
    expect((await t.call('PATCH', `/clients/${mine.id}`, { token: operator.token, body: { email: 'k@example.com' } })).status).toBe(200);
    expect((await t.call('DELETE', `/clients/${mine.id}`, { token: operator.token })).status).toBe(200);
    const key = await admin.createKey();
    expect((await t.call('POST', '/clients', { token: key.key, body: FISICA })).status).toBe(201);
  });

  test("another tenant gets 404 on every route, by JWT and by API key, and A's client is intact", async () => {
    const a = await tenant();
    const c = await create(a.token, MORAL);
    const b = await issuer(t, { tenant: TENANTS.FUNK });
    const bKey = await b.createKey();
    for (const token of [b.token, bKey.key]) {
      expect((await t.call('GET', `/clients/${c.id}`, { token })).status).toBe(404);
      expect((await t.call('PATCH', `/clients/${c.id}`, { token, body: { nombre: 'ROBADO' } })).status).toBe(404);
      expect((await t.call('DELETE', `/clients/${c.id}`, { token })).status).toBe(404);
      expect((await t.call('GET', '/clients', { token })).json.data).toEqual([]);
      expect((await t.call('GET', '/clients?q=eku', { token })).json.data).toEqual([]);
    }
    expect((await t.call('GET', `/clients/${c.id}`, { token: a.token })).json).toEqual(c);
  });

  test('test and live never mix: a sk_live_ key (or X-Environment: live) does not see test clients', async () => {
    const admin = await tenant();
    const testClient = await create(admin.token, MORAL);
    const live = await admin.createKey('live');
    const testKey = await admin.createKey('test');
    expect(live.key).toStartWith('sk_live_');
    expect((await t.call('GET', '/clients', { token: live.key })).json.data).toEqual([]);
    expect((await t.call('GET', `/clients/${testClient.id}`, { token: live.key })).status).toBe(404);
    expect((await t.call('PATCH', `/clients/${testClient.id}`, { token: live.key, body: { nombre: 'X' } })).status).toBe(404);
    expect((await t.call('DELETE', `/clients/${testClient.id}`, { token: live.key })).status).toBe(404);
    const liveClient = await create(live.key, FISICA);
    const liveHeaders = { 'x-environment': 'live' };
    expect((await t.call('GET', '/clients', { token: admin.token, headers: liveHeaders })).json.data.map((x: any) => x.id)).toEqual([liveClient.id]);
    expect((await t.call('GET', '/clients', { token: testKey.key })).json.data.map((x: any) => x.id)).toEqual([testClient.id]);
    expect((await t.call('GET', `/clients/${liveClient.id}`, { token: admin.token })).status).toBe(404);
  });
});

describe('getClientReceptor (for receptor_id)', () => {
  test('returns the receptor fields, without empty optional ones; undefined outside the tenant and environment', async () => {
    const a = await tenant();
    const moral = await create(a.token, { ...MORAL, email: 'x@example.com' });
    const foreign = await create(a.token, EXTRANJERO);
    const scope = { tenantId: a.tenant.id as string, environment: 'test' as const };
    expect(await getClientReceptor(t.db, scope, moral.id)).toEqual(MORAL);
    const { email: _email, ...receptor } = EXTRANJERO;
    expect(await getClientReceptor(t.db, scope, foreign.id)).toEqual(receptor);
    expect(await getClientReceptor(t.db, { ...scope, environment: 'live' }, moral.id)).toBeUndefined();
    const b = await issuer(t, { tenant: TENANTS.FUNK });
    expect(await getClientReceptor(t.db, { tenantId: b.tenant.id, environment: 'test' }, moral.id)).toBeUndefined();
    expect(await getClientReceptor(t.db, scope, 'cli_missing')).toBeUndefined();
  });
});
