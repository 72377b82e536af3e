import { catalogEntry } from '../../catalogs/index.ts';
import { Dec } from '../../cfdi/decimal.ts';
import { and, asc, eq, gt, gte, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { cfdiStats, cfdiStatsDeltas } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { csdCounts } from '../csds/service.ts';
import { retencionStats } from '../retenciones/stats.ts';
import { statsQueries } from './queries.ts';

/**
 * GET /stats: the tenant's activity in the caller's environment. CFDI figures come from `cfdi_stats` (kept by
 * triggers, a row per month × type × status × currency) plus the deltas not folded into it yet (PostgreSQL), so the
 * cost does not grow with the number of invoices.
 */

/** What counts as invoiced: stamped and not cancelled. */
const STANDING = new Set(['vigente', 'cancelacion_pendiente']);
const MILLION = Dec.parse('1000000');
const amount = (micros: bigint, moneda: string) =>
  Dec.parse(micros.toString())
    .div(MILLION, 6)
    .round(Number(catalogEntry('c_Moneda', moneda)?.decimales ?? 2))
    .toNumber();

interface StatsRow {
  mes: string;
  tipo: string;
  status: string;
  moneda: string;
  cantidad: number;
  micros: string;
}

/**
 * The tenant's counters by month, type, status and currency, months in order. On PostgreSQL: the folded rows plus the
 * deltas not folded yet, read in one statement (one snapshot: a fold that commits meanwhile moves a delta from one side
 * to the other, never out of both), then added up by key here.
 */
async function statsRows(db: Db, actor: Actor, range: { desde?: string; hasta?: string }): Promise<StatsRow[]> {
  const scope = (t: typeof cfdiStats | typeof cfdiStatsDeltas) =>
    and(eq(t.tenantId, actor.tenantId), eq(t.environment, actor.environment), gte(t.mes, range.desde ?? '0000-00'), lte(t.mes, range.hasta ?? '9999-99'));
  const columns = (t: typeof cfdiStats | typeof cfdiStatsDeltas) => ({
    mes: t.mes,
    tipo: t.tipo,
    status: t.status,
    moneda: t.moneda,
    cantidad: t.cantidad,
    // As text: a sum of millionths may pass 2^53, past what a JS number holds exactly.
    micros: sql<string>`cast(${t.totalMicros} as text)`,
  });
  const folded = db.select(columns(cfdiStats)).from(cfdiStats);
  // SQLite's triggers update cfdi_stats in place: its rows are the whole answer, read without the union's cost.
  if (!statsQueries(db).writesDeltas) return folded.where(and(scope(cfdiStats), gt(cfdiStats.cantidad, 0))).orderBy(asc(cfdiStats.mes));
  const d = cfdiStatsDeltas;
  // The deltas summed by key on the server: a busy tenant's few seconds of them are thousands of rows, its keys a few.
  const pending = db
    .select({
      mes: d.mes,
      tipo: d.tipo,
      status: d.status,
      moneda: d.moneda,
      cantidad: sql<number>`sum(${d.cantidad})`,
      micros: sql<string>`cast(sum(${d.totalMicros}) as text)`,
    })
    .from(d)
    .where(scope(d))
    .groupBy(d.mes, d.tipo, d.status, d.moneda);
  const read = await folded.where(scope(cfdiStats)).unionAll(pending);
  // Code-unit order of ASCII keys: the order of cfdi_stats' primary key on both engines (binary, collation "C").
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sameKey = (a: StatsRow, b: StatsRow) => a.mes === b.mes && a.tipo === b.tipo && a.status === b.status && a.moneda === b.moneda;
  read.sort((a, b) => order(a.mes, b.mes) || order(a.tipo, b.tipo) || order(a.status, b.status) || order(a.moneda, b.moneda));
  const rows: StatsRow[] = [];
  for (const r of read) {
    const last = rows[rows.length - 1];
    if (last && sameKey(last, r))
      rows[rows.length - 1] = { ...last, cantidad: Number(last.cantidad) + Number(r.cantidad), micros: String(BigInt(last.micros) + BigInt(r.micros)) };
    else rows.push(r);
  }
  return rows.filter((r) => Number(r.cantidad) > 0);
}

export async function tenantStats(deps: { db: Db; identity: IdentityDirectory }, actor: Actor, range: { desde?: string; hasta?: string }, now: Date) {
  const rows = await statsRows(deps.db, actor, range);

  const porStatus: Record<string, number> = {};
  const porTipo: Record<string, number> = {};
  const meses = new Map<string, { cantidad: number; por_tipo: Record<string, number>; importes: Map<string, bigint> }>();
  const importes = new Map<string, bigint>();
  let total = 0;
  for (const r of rows) {
    const n = Number(r.cantidad);
    total += n;
    porStatus[r.status] = (porStatus[r.status] ?? 0) + n;
    porTipo[r.tipo] = (porTipo[r.tipo] ?? 0) + n;
    let m = meses.get(r.mes);
    if (!m) meses.set(r.mes, (m = { cantidad: 0, por_tipo: {}, importes: new Map() }));
    m.cantidad += n;
    m.por_tipo[r.tipo] = (m.por_tipo[r.tipo] ?? 0) + n;
    if (STANDING.has(r.status)) {
      const key = `${r.tipo}|${r.moneda}`;
      m.importes.set(key, (m.importes.get(key) ?? 0n) + BigInt(r.micros));
      importes.set(key, (importes.get(key) ?? 0n) + BigInt(r.micros));
    }
  }
  const wire = (sums: Map<string, bigint>) =>
    [...sums.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, micros]) => {
        const [tipo, moneda] = key.split('|') as [string, string];
        return { tipo, moneda, total: amount(micros, moneda) };
      });

  const csd = await csdCounts(deps.db, actor, now);
  const members = await deps.identity.members(actor.tenantId, actor.environment);
  const users = Object.values(members.usersByRole);

  return {
    environment: actor.environment,
    cfdis: {
      total,
      por_status: porStatus,
      por_tipo: porTipo,
      importes: wire(importes),
      por_mes: [...meses.entries()].map(([mes, m]) => ({ mes, cantidad: m.cantidad, por_tipo: m.por_tipo, importes: wire(m.importes) })),
    },
    retenciones: await retencionStats(deps.db, actor, range),
    csds: { total: csd.total, activos: csd.activos, por_vencer_30_dias: csd.porVencer },
    usuarios: { total: users.reduce((a, n) => a + n, 0), por_rol: members.usersByRole },
    api_keys: { activas: members.activeApiKeys },
  };
}

/** Deltas per fold statement, and statements per run: a run stays short, and what is left waits for the next tick. */
const FOLD_BATCH = 5000;
const FOLD_BATCHES = 20;

/**
 * Folds the deltas written since the last run into `cfdi_stats` (PostgreSQL; SQLite has none), the scheduler's task on
 * every tick. Safe to run from several instances at once and to repeat: each delta is folded by one statement only.
 * Resolves to how many deltas it folded.
 */
export async function foldStatsDeltas(db: Db): Promise<number> {
  let folded = 0;
  for (let i = 0; i < FOLD_BATCHES; i++) {
    const n = await statsQueries(db).foldDeltas(db, FOLD_BATCH);
    folded += n;
    if (n < FOLD_BATCH) break;
  }
  return folded;
}
