import { coordinationFor } from '../../../src/topology/one-database.ts';
import { afterAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../src/db/client.ts';
import { withTransaction } from '../../../src/db/index.ts';
import { cfdiStats, cfdiStatsDeltas } from '../../../src/db/schema/index.ts';
import { statsQueries } from '../../../src/invoices/stats/queries.ts';
import { foldStatsDeltas } from '../../../src/invoices/stats/service.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { periodicWork } from '../../../src/periodic.ts';
import {
  closeDatabase,
  concepto,
  createTestApp,
  ICV,
  ingreso,
  issuer,
  query,
  READY,
  sharedTestDatabase,
  TEST_ENGINE,
  type TestApp,
  until,
} from '../../helpers.ts';

/**
 * Issue 37, item 2: GET /stats answers what the invoices themselves say, whether their moves are folded into
 * cfdi_stats or still deltas (PostgreSQL), and the fold loses or doubles nothing, however many run at once.
 */
const DAY = 86_400_000;
const STANDING = new Set(['vigente', 'cancelacion_pendiente']);
const DECIMALS: Record<string, number> = { MXN: 2, USD: 2, XXX: 0 };

const opened: Db[] = [];
afterAll(async () => {
  for (const db of opened.splice(0)) await closeDatabase(db);
});

/** Exact millionths of a decimal text (Total as the cfdis row keeps it). */
function micros(total: string): bigint {
  const [whole, frac = ''] = total.split('.');
  return BigInt(whole!) * 1_000_000n + BigInt((frac + '000000').slice(0, 6));
}

/** What GET /stats must say about CFDIs, computed from the tenant's cfdis rows in that environment. */
async function fromInvoices(t: TestApp, tenantId: string, range: { desde?: string; hasta?: string } = {}) {
  const rows = await t.query<{ fecha: string; tipo: string; status: string; moneda: string; total: string }>(
    sql`select fecha, tipo, status, moneda, total from cfdis where tenant_id = ${tenantId} and environment = 'test'`,
  );
  const inRange = rows.filter((r) => r.fecha.slice(0, 7) >= (range.desde ?? '0000-00') && r.fecha.slice(0, 7) <= (range.hasta ?? '9999-99'));
  const count = (list: typeof rows, by: 'status' | 'tipo') => {
    const out: Record<string, number> = {};
    for (const r of list) out[r[by]] = (out[r[by]] ?? 0) + 1;
    return out;
  };
  const importes = (list: typeof rows) => {
    const sums = new Map<string, bigint>();
    for (const r of list.filter((r) => STANDING.has(r.status))) sums.set(`${r.tipo}|${r.moneda}`, (sums.get(`${r.tipo}|${r.moneda}`) ?? 0n) + micros(r.total));
    return [...sums]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, m]) => {
        const [tipo, moneda] = key.split('|') as [string, string];
        const scale = 10n ** BigInt(6 - DECIMALS[moneda]!);
        expect(m % scale).toBe(0n); // a Total carries no more decimals than its currency
        return { tipo, moneda, total: Number(m / scale) / 10 ** DECIMALS[moneda]! };
      });
  };
  const meses = [...new Set(inRange.map((r) => r.fecha.slice(0, 7)))].sort();
  return {
    total: inRange.length,
    por_status: count(inRange, 'status'),
    por_tipo: count(inRange, 'tipo'),
    importes: importes(inRange),
    por_mes: meses.map((mes) => {
      const of = inRange.filter((r) => r.fecha.startsWith(mes));
      return { mes, cantidad: of.length, por_tipo: count(of, 'tipo'), importes: importes(of) };
    }),
  };
}

async function statsOf(t: TestApp, key: string, range = '') {
  const res = await t.call('GET', `/stats${range}`, { token: key });
  expect(res.status).toBe(200);
  return res.json.cfdis;
}

const pendingDeltas = async (t: TestApp, tenantId: string) => t.count(cfdiStatsDeltas, sql`${cfdiStatsDeltas.tenantId} = ${tenantId}`);
const foldedRows = async (t: TestApp, tenantId: string) => t.count(cfdiStats, sql`${cfdiStats.tenantId} = ${tenantId}`);

/** Issues through the API and expects `status`; the created CFDI. */
async function issue(t: TestApp, key: string, body: unknown, status = 201, headers: Record<string, string> = {}) {
  const res = await t.call('POST', '/cfdis', { token: key, body, headers });
  expect(res.status).toBe(status);
  return res.json;
}
const ingresoOf = (valor: string, over: Record<string, unknown> = {}) => ingreso({ conceptos: [concepto({ valor_unitario: valor })], ...over });

describe('GET /stats from folded rows and deltas', () => {
  test('answers what the cfdis rows say after a mixed history: before a fold, after it, and with new deltas over folded rows', async () => {
    // No wake on enqueue: the queued invoice stays en_cola and the pending cancellation pending.
    const t = await createTestApp({ wakeOnEnqueue: false });
    const { key, tenant } = await issuer(t, READY);
    const other = await issuer(t, READY); // another tenant, whose figures must not leak in
    const start = t.clock.now;

    // Two months back: MXN and USD Ingresos, a Traslado.
    t.clock.now = new Date(start.getTime() - 62 * DAY);
    const old = await issue(t, key, ingresoOf('100.00'));
    const usd = await issue(t, key, ingresoOf('10.00', { moneda: 'USD', tipo_cambio: '17.5' }));
    await issue(t, key, {
      tipo: 'T',
      receptor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601', domicilio_fiscal: '42501', uso_cfdi: 'S01' },
      conceptos: [{ clave_prod_serv: '43211503', clave_unidad: 'H87', descripcion: 'Equipo', cantidad: 1, valor_unitario: 0 }],
    });
    // One month back: one cancelled, one rejected by the PAC (fallido).
    t.clock.now = new Date(start.getTime() - 31 * DAY);
    const toCancel = await issue(t, key, ingresoOf('333.33'));
    expect((await t.call('POST', `/cfdis/${toCancel.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    await issue(t, key, ingresoOf('50.00'), 422, { 'x-sandbox-scenario': 'pac_rejected' });
    // This month: an Egreso related to the old Ingreso, one queued (en_cola), one awaiting the receiver's acceptance.
    t.clock.now = start;
    await issue(t, key, {
      tipo: 'E',
      forma_pago: '03',
      receptor: { ...ICV, uso_cfdi: 'G02' },
      cfdi_relacionados: [{ tipo_relacion: '01', uuids: [old.uuid] }],
      conceptos: ingresoOf('5.00').conceptos,
    });
    await issue(t, key, ingresoOf('0.10'), 202, { 'x-sandbox-scenario': 'pac_unavailable' });
    const pending = await issue(t, key, ingresoOf('1000.00'));
    const held = await t.call('POST', `/cfdis/${pending.id}/cancel`, {
      token: key,
      body: { motivo: '02' },
      headers: { 'x-sandbox-scenario': 'cancel_pending_accept' },
    });
    expect(held.status).toBe(202);
    await issue(t, other.key, ingresoOf('999.00'));

    const expected = await fromInvoices(t, tenant.id);
    expect(expected.por_mes.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(expected.por_status).sort()).toEqual(['cancelacion_pendiente', 'cancelado', 'en_cola', 'fallido', 'vigente']);
    const middle = expected.por_mes[1]!.mes;
    const check = async () => {
      expect(await statsOf(t, key)).toEqual(await fromInvoices(t, tenant.id));
      expect(await statsOf(t, key, `?desde=${middle}`)).toEqual(await fromInvoices(t, tenant.id, { desde: middle }));
      expect(await statsOf(t, key, `?hasta=${middle}`)).toEqual(await fromInvoices(t, tenant.id, { hasta: middle }));
      expect(await statsOf(t, other.key)).toEqual(await fromInvoices(t, other.tenant.id));
    };

    // Nothing folded yet: on PostgreSQL every move is still a delta, none in cfdi_stats.
    if (TEST_ENGINE === 'postgres') {
      expect(await pendingDeltas(t, tenant.id)).toBeGreaterThan(expected.total);
      expect(await foldedRows(t, tenant.id)).toBe(0);
    }
    await check();

    const folded = await foldStatsDeltas(t.db);
    if (TEST_ENGINE === 'postgres') {
      expect(folded).toBeGreaterThan(expected.total);
      expect(await pendingDeltas(t, tenant.id)).toBe(0);
      expect(await foldedRows(t, tenant.id)).toBeGreaterThan(0);
    } else expect(folded).toBe(0); // SQLite's triggers write cfdi_stats directly
    await check();

    // New moves over folded rows: a folded vigente cancelled (it leaves one folded row for another), new invoices.
    expect((await t.call('POST', `/cfdis/${usd.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    const later = await issue(t, key, ingresoOf('7.77'));
    expect((await t.call('POST', `/cfdis/${later.id}/cancel`, { token: key, body: { motivo: '02' } })).status).toBe(200);
    await issue(t, key, ingresoOf('12.34', { moneda: 'USD', tipo_cambio: '17.5' }));
    if (TEST_ENGINE === 'postgres') expect(await pendingDeltas(t, tenant.id)).toBeGreaterThan(0);
    await check();

    await foldStatsDeltas(t.db);
    await check();
    // Idempotent: a fold with nothing new changes nothing.
    expect(await foldStatsDeltas(t.db)).toBe(0);
    await check();
  });

  test('the scheduler folds on every tick (periodic.ts), on one instance at a time', async () => {
    const t = await createTestApp();
    const { key, tenant } = await issuer(t, READY);
    await issue(t, key, ingresoOf('1.00'));
    const fold = periodicWork({
      db: t.db,
      logger: createLogger('silent'),
      exclusive: coordinationFor(t.db, { heartbeat: { lastTickAt: () => Date.now(), intervalMs: 5000 } }).exclusive,
      drainJobs: async () => 0,
    }).tasks.find((task) => task.name === 'stats-fold');
    expect(fold).toBeDefined();
    await fold!.run();
    expect(await pendingDeltas(t, tenant.id)).toBe(0);
    expect(await statsOf(t, key)).toEqual(await fromInvoices(t, tenant.id));
  });
});

// PostgreSQL only: SQLite's triggers update cfdi_stats in the writer's transaction by design (one writer at a time:
// there is no row for concurrent transactions to contend for), and two SQLite handles cannot hold transactions at once.
describe.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL: no hot row', () => {
  test('concurrent issuing writes no cfdi_stats row: a guard that refuses any write to it lets every invoice through', async () => {
    const t = await createTestApp();
    const { key, tenant } = await issuer(t, READY);
    await issue(t, key, ingresoOf('1.00'));
    await foldStatsDeltas(t.db); // the tenant has a folded row that every new vigente MXN Ingreso would update
    expect(await foldedRows(t, tenant.id)).toBeGreaterThan(0);
    await t.exec(sql`create function cfdi_stats_guard() returns trigger language plpgsql as $$ begin raise exception 'cfdi_stats written by %', tg_op; end $$`);
    await t.exec(sql`create trigger cfdi_stats_guard before insert or update or delete on cfdi_stats for each row execute function cfdi_stats_guard()`);
    const [before] = await t.query<{ n: number }>(sql`select count(*)::int as n from cfdi_stats_deltas`);
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => t.call('POST', '/cfdis', { token: key, body: ingresoOf(`${i + 1}.00`) })));
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(201));
    const cancelled = await t.call('POST', `/cfdis/${answers[0]!.json.id}/cancel`, { token: key, body: { motivo: '02' } });
    expect(cancelled.status).toBe(200);
    // Issued en_cola and stamped after its folio's transaction: three deltas each (+1; -1, +1 at the stamp); the
    // cancellation's two moves (vigente → cancelacion_pendiente → cancelado) two each (-1, +1).
    const [after] = await t.query<{ n: number }>(sql`select count(*)::int as n from cfdi_stats_deltas`);
    expect(after!.n - before!.n).toBe(16 * 3 + 2 * 2);
    expect(await statsOf(t, key)).toEqual(await fromInvoices(t, tenant.id));
    await t.exec(sql`drop trigger cfdi_stats_guard on cfdi_stats`);
    await foldStatsDeltas(t.db);
    expect(await statsOf(t, key)).toEqual(await fromInvoices(t, tenant.id));
  });

  test('two instances folding at once fold each delta once: one waits on the other, then finds its rows gone', async () => {
    const [a, b] = await sharedTestDatabase(2);
    opened.push(a!, b!);
    const t = await createTestApp({ db: a });
    const { key, tenant } = await issuer(t, READY);
    for (const v of ['1.00', '2.00', '3.00']) await issue(t, key, ingresoOf(v));
    const expected = await fromInvoices(t, tenant.id);

    // Instance A's fold holds its transaction open; B's fold starts meanwhile and must wait for it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let foldedByA = -1;
    const first = withTransaction(a!, { isolation: 'read committed', name: 'test.fold' }, async (tx) => {
      foldedByA = await statsQueries(tx).foldDeltas(tx, 1000);
      await gate;
    });
    await until(() => foldedByA >= 0, "A's fold to run");
    const second = foldStatsDeltas(b!);
    await until(
      async () =>
        (
          await query<{ n: number }>(
            a!,
            sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like ${'%cfdi_stats_deltas%'}`,
          )
        )[0]!.n > 0,
      "B's fold to wait on A's",
    );
    release();
    await first;
    expect(foldedByA).toBeGreaterThan(0);
    expect(await second).toBe(0);
    expect(await statsOf(t, key)).toEqual(expected);

    // Many small folds from both instances at once, over new deltas: none lost, none added twice.
    for (let i = 0; i < 12; i++) await issue(t, key, ingresoOf(`${i + 10}.25`));
    const deltas = await pendingDeltas(t, tenant.id);
    expect(deltas).toBeGreaterThanOrEqual(12);
    const smallFolds = (db: Db) => async () => {
      let n = 0;
      // A fold that finds its row taken by the other gets 0 and stops; the other goes on until none is left.
      while ((await statsQueries(db).foldDeltas(db, 1)) > 0) n++;
      return n;
    };
    const [byA, byB] = await Promise.all([smallFolds(a!)(), smallFolds(b!)()]);
    expect(byA + byB).toBe(deltas);
    expect(await pendingDeltas(t, tenant.id)).toBe(0);
    expect(await statsOf(t, key)).toEqual(await fromInvoices(t, tenant.id));
    expect(await foldStatsDeltas(b!)).toBe(0);
    expect(await statsOf(t, key)).toEqual(await fromInvoices(t, tenant.id));
  });
});
