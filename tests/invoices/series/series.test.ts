import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/db/client.ts';
import { statusOf } from '../../../src/lib/errors.ts';
import { ServiceError } from '../../../src/lib/service-error.ts';
import { allocateFolio, peekFolio } from '../../../src/invoices/series/service.ts';
import type { components } from '../../../clients/typescript/src/index.ts';
import { closeDatabase, createTestApp, expectStatus, issuer, TENANTS } from '../../helpers.ts';
import { withTransaction } from '../../../src/db/index.ts';
import { cfdis } from '../../../src/db/schema/index.ts';
import { cfdiQueries } from '../../../src/invoices/cfdis/queries.ts';
import { eq } from 'drizzle-orm';

const t = await createTestApp();

type SeriesCreate = components['schemas']['SeriesCreate'];

const create = async (token: string, body: SeriesCreate, headers: Record<string, string> = {}) =>
  expectStatus(await t.api('POST', '/series', { token, body, headers }), 201).json;

async function list(token: string, headers: Record<string, string> = {}) {
  return (await t.call('GET', '/series?limit=100', { token, headers })).json.data as any[];
}
const defaults = async (token: string) => (await list(token)).filter((s) => s.default).map((s) => s.serie);

describe('POST /series', () => {
  test('creates a series; the first one of an environment is the default', async () => {
    const { token } = await issuer(t);
    const res = await t.call('POST', '/series', { token, body: { serie: 'F' } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ serie: 'F', next_folio: 1, default: true, descripcion: null });
    expect(res.json.id).toMatch(/^ser_[0-9a-z]{26}$/);
    const second = await create(token, { serie: 'NC', folio_inicial: 500, descripcion: 'Notas de crédito' });
    expect(second).toMatchObject({ serie: 'NC', next_folio: 500, default: false, descripcion: 'Notas de crédito' });
    expect((await t.call('GET', `/series/${second.id}`, { token })).json).toEqual(second);
  });

  test('default: true takes the default from the previous one; exactly one default remains', async () => {
    const { token } = await issuer(t);
    await create(token, { serie: 'A' });
    await create(token, { serie: 'B', default: true });
    expect(await defaults(token)).toEqual(['B']);
    await create(token, { serie: 'C', default: false });
    expect(await defaults(token)).toEqual(['B']);
  });

  test('the first series is the default even when default: false is sent', async () => {
    const { token } = await issuer(t);
    expect((await create(token, { serie: 'X', default: false })).default).toBe(true);
  });

  test('duplicate serie in the same tenant and environment → 409; elsewhere it is fine', async () => {
    const a = await issuer(t);
    await create(a.token, { serie: 'F' });
    const dup = await t.call('POST', '/series', { token: a.token, body: { serie: 'F', folio_inicial: 9 } });
    expect(dup.status).toBe(409);
    expect(dup.json.error.details[0].field).toBe('serie');
    expect((await t.call('POST', '/series', { token: a.token, body: { serie: ' F ' } })).status).toBe(409); // trimmed
    expect((await create(a.token, { serie: 'f' })).serie).toBe('f'); // case matters, as in the XML
    expect((await create(a.token, { serie: 'F' }, { 'x-environment': 'live' })).default).toBe(true);
    const b = await issuer(t, { tenant: TENANTS.FUNK });
    await create(b.token, { serie: 'F' });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['empty serie', { serie: '' }, 'serie'],
    ['blank serie', { serie: '   ' }, 'serie'],
    ['serie over 25 characters', { serie: 'S'.repeat(26) }, 'serie'],
    ['serie with "|"', { serie: 'A|B' }, 'serie'],
    ['serie with consecutive spaces', { serie: 'A  B' }, 'serie'],
    ['serie not a string', { serie: 7 }, 'serie'],
    ['missing serie', {}, 'serie'],
    ['folio_inicial 0', { serie: 'A', folio_inicial: 0 }, 'folio_inicial'],
    ['folio_inicial -3', { serie: 'A', folio_inicial: -3 }, 'folio_inicial'],
    ['folio_inicial 1.5', { serie: 'A', folio_inicial: 1.5 }, 'folio_inicial'],
    ['folio_inicial as text', { serie: 'A', folio_inicial: '10' }, 'folio_inicial'],
    ['folio_inicial over 15 digits', { serie: 'A', folio_inicial: 1e15 }, 'folio_inicial'],
    ['default not boolean', { serie: 'A', default: 'yes' }, 'default'],
    ['unknown field', { serie: 'A', next_folio: 4 }, 'next_folio'],
  ];
  for (const [label, body, field] of invalid) {
    test(`${label} → 400 naming ${field}`, async () => {
      const { token } = await issuer(t);
      const res = await t.call('POST', '/series', { token, body });
      expect(res.status).toBe(400);
      expect(res.json.error.details.map((d: any) => d.field)).toEqual([field]);
    });
  }

  test('25 characters with spaces and accents are fine', async () => {
    const { token } = await issuer(t);
    expect((await create(token, { serie: 'FACTURAS MOSTRADOR ÑANDÚ1' })).serie).toBe('FACTURAS MOSTRADOR ÑANDÚ1');
  });
});

describe('GET /series', () => {
  test('pages by cursor', async () => {
    const { token } = await issuer(t);
    const ids: string[] = [];
    for (const s of ['A', 'B', 'C', 'D', 'E']) ids.push((await create(token, { serie: s })).id);
    const first = await t.call('GET', '/series?limit=2', { token });
    expect(first.json.pagination).toMatchObject({ has_more: true, limit: 2 });
    const second = await t.call('GET', `/series?limit=2&cursor=${first.json.pagination.next_cursor}`, { token });
    const third = await t.call('GET', `/series?limit=2&cursor=${second.json.pagination.next_cursor}`, { token });
    expect(third.json.pagination.has_more).toBe(false);
    expect([...first.json.data, ...second.json.data, ...third.json.data].map((s: any) => s.id)).toEqual(ids);
    expect((await t.call('GET', '/series?cursor=nope', { token })).status).toBe(400);
  });
});

describe('PATCH /series/:id', () => {
  test('folio_inicial moves forward (or stays); backwards is 409 and changes nothing', async () => {
    const { token } = await issuer(t);
    const s = await create(token, { serie: 'F', folio_inicial: 100 });
    const same = await t.call('PATCH', `/series/${s.id}`, { token, body: { folio_inicial: 100 } });
    expect(same.status).toBe(200);
    const fwd = await t.call('PATCH', `/series/${s.id}`, { token, body: { folio_inicial: 250 } });
    expect(fwd.json.next_folio).toBe(250);
    const back = await t.call('PATCH', `/series/${s.id}`, { token, body: { folio_inicial: 249, descripcion: 'no' } });
    expect(back.status).toBe(409);
    expect(back.json.error.details[0].field).toBe('folio_inicial');
    expect(back.json.error.details[0].issue).toContain('250');
    expect((await t.call('GET', `/series/${s.id}`, { token })).json).toMatchObject({ next_folio: 250, descripcion: null });
  });

  test('folio_inicial below a folio already assigned is 409', async () => {
    const reg = await issuer(t);
    const s = await create(reg.token, { serie: 'F' });
    await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
      for (let i = 0; i < 3; i++) await allocateFolio(tx, { tenantId: reg.tenant.id, environment: 'test' }, 'F');
    });
    expect((await t.call('GET', `/series/${s.id}`, { token: reg.token })).json.next_folio).toBe(4);
    expect((await t.call('PATCH', `/series/${s.id}`, { token: reg.token, body: { folio_inicial: 3 } })).status).toBe(409);
    expect((await t.call('PATCH', `/series/${s.id}`, { token: reg.token, body: { folio_inicial: 4 } })).status).toBe(200);
  });

  test('default: true switches the default in one step; default: false on the default is 409', async () => {
    const { token } = await issuer(t);
    const a = await create(token, { serie: 'A' });
    const b = await create(token, { serie: 'B' });
    const switched = await t.call('PATCH', `/series/${b.id}`, { token, body: { default: true } });
    expect(switched.status).toBe(200);
    expect(switched.json.default).toBe(true);
    expect(await defaults(token)).toEqual(['B']);
    const unset = await t.call('PATCH', `/series/${b.id}`, { token, body: { default: false } });
    expect(unset.status).toBe(409);
    expect(unset.json.error.details[0].field).toBe('default');
    expect(await defaults(token)).toEqual(['B']);
    // false on a series that is not the default changes nothing.
    expect((await t.call('PATCH', `/series/${a.id}`, { token, body: { default: false } })).json.default).toBe(false);
    await t.call('PATCH', `/series/${a.id}`, { token, body: { default: true } });
    expect(await defaults(token)).toEqual(['A']);
  });

  test('descripcion is set and cleared; updated_at moves', async () => {
    const { token } = await issuer(t);
    const s = await create(token, { serie: 'A' });
    t.clock.advance(1000);
    const set = await t.call('PATCH', `/series/${s.id}`, { token, body: { descripcion: 'Mostrador' } });
    expect(set.json).toMatchObject({ descripcion: 'Mostrador', created_at: s.created_at });
    expect(set.json.updated_at > s.updated_at).toBe(true);
    expect((await t.call('PATCH', `/series/${s.id}`, { token, body: { descripcion: null } })).json.descripcion).toBeNull();
  });

  test('invalid input is 400; the serie name cannot change', async () => {
    const { token } = await issuer(t);
    const s = await create(token, { serie: 'A' });
    for (const body of [{ folio_inicial: 0 }, { default: 1 }, { serie: 'B' }, { descripcion: '' }]) {
      const res = await t.call('PATCH', `/series/${s.id}`, { token, body });
      expect(res.status).toBe(400);
      expect(res.json.error.details).toHaveLength(1);
    }
  });

  test('series cannot be deleted (405)', async () => {
    const { token } = await issuer(t);
    const s = await create(token, { serie: 'A' });
    const res = await t.call('DELETE', `/series/${s.id}`, { token });
    expect(res.status).toBe(405);
  });
});

describe('roles, tenants and environments', () => {
  test('VIEWER reads but cannot write (403); OPERATOR and an API key write', async () => {
    const admin = await issuer(t);
    const s = await create(admin.token, { serie: 'A' });
    const viewer = await admin.userWithRole('VIEWER');
    expect((await list(viewer.token)).map((x) => x.id)).toEqual([s.id]);
    expect((await t.call('GET', `/series/${s.id}`, { token: viewer.token })).status).toBe(200);
    expect((await t.call('POST', '/series', { token: viewer.token, body: { serie: 'V' } })).status).toBe(403);
    expect((await t.call('PATCH', `/series/${s.id}`, { token: viewer.token, body: { folio_inicial: 9 } })).status).toBe(403);
    expect((await t.call('GET', `/series/${s.id}`, { token: viewer.token })).json.next_folio).toBe(1);
    const operator = await admin.userWithRole('OPERATOR');
    const o = await create(operator.token, { serie: 'O' });
    expect((await t.call('PATCH', `/series/${o.id}`, { token: operator.token, body: { default: true } })).status).toBe(200);
    const key = await admin.createKey();
    expect((await t.call('POST', '/series', { token: key.key, body: { serie: 'K' } })).status).toBe(201);
  });

  test('another tenant gets 404 on every route, by JWT and by API key', async () => {
    const a = await issuer(t);
    const s = await create(a.token, { serie: 'A', folio_inicial: 10 });
    const b = await issuer(t, { tenant: TENANTS.FUNK });
    const bKey = await b.createKey();
    for (const token of [b.token, bKey.key]) {
      expect((await t.call('GET', `/series/${s.id}`, { token })).status).toBe(404);
      expect((await t.call('PATCH', `/series/${s.id}`, { token, body: { folio_inicial: 99 } })).status).toBe(404);
      expect((await t.call('PATCH', `/series/${s.id}`, { token, body: { default: true } })).status).toBe(404);
      expect(await list(token)).toEqual([]);
    }
    expect((await t.call('GET', `/series/${s.id}`, { token: a.token })).json).toEqual(s);
  });

  test('test and live never mix', async () => {
    const admin = await issuer(t);
    const testSeries = await create(admin.token, { serie: 'A' });
    const live = await admin.createKey('live');
    expect(await list(live.key)).toEqual([]);
    expect((await t.call('GET', `/series/${testSeries.id}`, { token: live.key })).status).toBe(404);
    expect((await t.call('PATCH', `/series/${testSeries.id}`, { token: live.key, body: { folio_inicial: 5 } })).status).toBe(404);
    const liveSeries = await create(live.key, { serie: 'A', folio_inicial: 7 });
    expect(liveSeries.default).toBe(true); // its own default, independent of test's
    expect((await list(admin.token, { 'x-environment': 'live' })).map((s) => s.id)).toEqual([liveSeries.id]);
    expect((await list(admin.token)).map((s) => s.id)).toEqual([testSeries.id]);
    const tenantId = admin.tenant.id as string;
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, { tenantId, environment: 'live' }))).toEqual({
      serie: 'A',
      folio: 7,
    });
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, { tenantId, environment: 'test' }))).toEqual({
      serie: 'A',
      folio: 1,
    });
  });
});

describe('allocateFolio / peekFolio', () => {
  test('with no series: the default series "A" is created on first use and shows in the API', async () => {
    const reg = await issuer(t);
    const scope = { tenantId: reg.tenant.id as string, environment: 'test' as const };
    expect(await peekFolio(t.db, scope)).toEqual({ serie: 'A', folio: 1 });
    expect(await list(reg.token)).toEqual([]); // peeking creates nothing
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope))).toEqual({ serie: 'A', folio: 1 });
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope))).toEqual({ serie: 'A', folio: 2 });
    const [a] = await list(reg.token);
    expect(a).toMatchObject({ serie: 'A', next_folio: 3, default: true });
    expect(a.id).toStartWith('ser_');
    expect(await peekFolio(t.db, scope)).toEqual({ serie: 'A', folio: 3 });
  });

  test('without serie the default series is used, with serie that one; peek consumes nothing', async () => {
    const reg = await issuer(t);
    const scope = { tenantId: reg.tenant.id as string, environment: 'test' as const };
    await create(reg.token, { serie: 'F', folio_inicial: 100 });
    await create(reg.token, { serie: 'NC', folio_inicial: 5 });
    expect(await peekFolio(t.db, scope)).toEqual({ serie: 'F', folio: 100 });
    expect(await peekFolio(t.db, scope)).toEqual({ serie: 'F', folio: 100 });
    expect(await peekFolio(t.db, scope, 'NC')).toEqual({ serie: 'NC', folio: 5 });
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope))).toEqual({ serie: 'F', folio: 100 });
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope, 'NC'))).toEqual({ serie: 'NC', folio: 5 });
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope, 'NC'))).toEqual({ serie: 'NC', folio: 6 });
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope))).toEqual({ serie: 'F', folio: 101 });
    expect((await list(reg.token)).map((s) => [s.serie, s.next_folio])).toEqual([
      ['F', 102],
      ['NC', 7],
    ]);
  });

  test('an unknown serie is a ServiceError naming serie, answered 400 by the invoice backend, from both functions', async () => {
    const reg = await issuer(t);
    const scope = { tenantId: reg.tenant.id as string, environment: 'test' as const };
    for (const run of [
      () => withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope, 'Z')),
      () => peekFolio(t.db, scope, 'Z'),
    ]) {
      let err: unknown;
      try {
        await run();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ServiceError);
      expect(statusOf((err as ServiceError).kind, 'invoices')).toBe(400);
      expect((err as ServiceError).details).toEqual([{ field: 'serie', issue: 'Z does not exist; create it with POST /series' }]);
    }
    // Nothing was created on the way.
    expect(await list(reg.token)).toEqual([]);
  });

  test('takeFolio (issuing on PostgreSQL) takes the folio last, onto the invoice inserted without one; nothing when no series matches', async () => {
    const reg = await issuer(t);
    const scope = { tenantId: reg.tenant.id as string, environment: 'test' as const };
    await create(reg.token, { serie: 'F', folio_inicial: 100 });
    await create(reg.token, { serie: 'NC', folio_inicial: 5 });
    const invoice = (id: string) => ({
      id,
      tenantId: scope.tenantId,
      environment: scope.environment,
      tipo: 'I',
      status: 'en_cola' as const,
      fecha: '2026-11-27T10:00:00',
      receptorRfc: 'XAXX010101000',
      receptorNombre: 'PUBLICO EN GENERAL',
      moneda: 'MXN',
      subtotal: '1',
      total: '1',
      summary: {} as never,
    });
    const folioOf = async (id: string) => (await t.db.select({ serie: cfdis.serie, folio: cfdis.folio }).from(cfdis).where(eq(cfdis.id, id)))[0];
    const take = (id: string, serie?: string, then?: () => void) =>
      withTransaction(t.db, { isolation: 'read committed' }, async (tx) => {
        await tx.insert(cfdis).values(invoice(id));
        const taken = await cfdiQueries(tx).takeFolio(tx, scope, serie, id);
        then?.();
        return taken;
      });
    const ids = ['cfdi_take_1', 'cfdi_take_2', 'cfdi_take_3', 'cfdi_take_4'].map((id) => `${id}_${scope.tenantId}`);
    expect(await take(ids[0]!)).toEqual({ serie: 'F', folio: 100 });
    expect(await take(ids[1]!, 'NC')).toEqual({ serie: 'NC', folio: 5 });
    expect(await folioOf(ids[0]!)).toEqual({ serie: 'F', folio: 100 });
    expect(await folioOf(ids[1]!)).toEqual({ serie: 'NC', folio: 5 });
    expect(await take(ids[2]!, 'Z')).toBeUndefined();
    expect(await folioOf(ids[2]!)).toEqual({ serie: null, folio: null });
    // Rolled back: the folio is not consumed, the invoice not stored.
    await expect(
      take(ids[3]!, undefined, () => {
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await folioOf(ids[3]!)).toBeUndefined();
    expect((await list(reg.token)).map((s) => [s.serie, s.next_folio])).toEqual([
      ['F', 101],
      ['NC', 6],
    ]);
  });

  test('a series of another tenant or environment is not found', async () => {
    const a = await issuer(t);
    await create(a.token, { serie: 'SOLO' });
    const b = await issuer(t, { tenant: TENANTS.FUNK });
    await expect(peekFolio(t.db, { tenantId: b.tenant.id, environment: 'test' }, 'SOLO')).rejects.toThrow(ServiceError);
    await expect(peekFolio(t.db, { tenantId: a.tenant.id, environment: 'live' }, 'SOLO')).rejects.toThrow(ServiceError);
  });

  test('inside a transaction that rolls back, no folio is consumed (nor a series created)', async () => {
    const reg = await issuer(t);
    const scope = { tenantId: reg.tenant.id as string, environment: 'test' as const };
    await expect(
      withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
        expect(await allocateFolio(tx, scope)).toEqual({ serie: 'A', folio: 1 });
        throw new Error('the invoice insert failed');
      }),
    ).rejects.toThrow('the invoice insert failed');
    expect(await list(reg.token)).toEqual([]);
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope))).toEqual({ serie: 'A', folio: 1 });
    await expect(
      withTransaction(t.db, { isolation: 'serializable' }, async (tx) => {
        expect(await allocateFolio(tx, scope, 'A')).toEqual({ serie: 'A', folio: 2 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow();
    expect(await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope, 'A'))).toEqual({ serie: 'A', folio: 2 });
  });

  test('many allocations are consecutive and unique, switching the default in between', async () => {
    const reg = await issuer(t);
    const scope = { tenantId: reg.tenant.id as string, environment: 'test' as const };
    const f = await create(reg.token, { serie: 'F' });
    const g = await create(reg.token, { serie: 'G', folio_inicial: 1000 });
    const got: Record<string, number[]> = { F: [], G: [] };
    for (let i = 0; i < 600; i++) {
      if (i === 200) await t.call('PATCH', `/series/${g.id}`, { token: reg.token, body: { default: true } });
      if (i === 400) await t.call('PATCH', `/series/${f.id}`, { token: reg.token, body: { default: true } });
      const { serie, folio } = await withTransaction(t.db, { isolation: 'serializable' }, async (tx) => allocateFolio(tx, scope));
      got[serie]!.push(folio);
    }
    expect(got.F).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(got.G).toEqual(Array.from({ length: 200 }, (_, i) => i + 1000));
  });

  test('concurrent connections (workers on one database file) get consecutive folios with no repeats', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfdi-folios-'));
    try {
      const path = join(dir, 'cfdi.sqlite');
      const db = openDatabase(path);
      const { tenant } = await issuer(await createTestApp({ db }));
      closeDatabase(db);
      const run = (n: number) =>
        new Promise<string[]>((resolve, reject) => {
          const w = new Worker(new URL('./folio-worker.ts', import.meta.url).href);
          w.onmessage = (e) => {
            resolve(e.data);
            w.terminate();
          };
          w.onerror = (e) => reject(new Error(e.message));
          w.postMessage({ path, tenantId: tenant.id, n });
        });
      // All race to create the default series "A" and then to take folios from it.
      const results = await Promise.all([run(150), run(150), run(150), run(150)]);
      const folios = results.flat().map((s) => Number(s.replace(/^A-/, '')));
      expect(results.flat().every((s) => s.startsWith('A-'))).toBe(true);
      expect([...folios].sort((x, y) => x - y)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
      for (const r of results) {
        const mine = r.map((s) => Number(s.slice(2)));
        expect(mine).toEqual([...mine].sort((x, y) => x - y)); // each connection sees them increase
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
