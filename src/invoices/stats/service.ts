import { catalogEntry } from '../../catalogs/index.ts';
import { Dec } from '../../cfdi/decimal.ts';
import { and, asc, eq, gt, gte, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { cfdiStats } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { csdCounts } from '../csds/service.ts';

/**
 * GET /stats: the tenant's activity in the caller's environment. CFDI figures come from `cfdi_stats` (kept by
 * triggers, a row per month × type × status × currency), so the cost does not grow with the number of invoices.
 */

/** What counts as invoiced: stamped and not cancelled. */
const STANDING = new Set(['vigente', 'cancelacion_pendiente']);
const MILLION = Dec.parse('1000000');
const amount = (micros: bigint, moneda: string) =>
  Dec.parse(micros.toString())
    .div(MILLION, 6)
    .round(Number(catalogEntry('c_Moneda', moneda)?.decimales ?? 2))
    .toNumber();

export async function tenantStats(deps: { db: Db; identity: IdentityDirectory }, actor: Actor, range: { desde?: string; hasta?: string }, now: Date) {
  const rows = await deps.db
    .select({
      mes: cfdiStats.mes,
      tipo: cfdiStats.tipo,
      status: cfdiStats.status,
      moneda: cfdiStats.moneda,
      cantidad: cfdiStats.cantidad,
      // As text: a sum of millionths may pass 2^53, past what a JS number holds exactly.
      micros: sql<string>`cast(${cfdiStats.totalMicros} as text)`,
    })
    .from(cfdiStats)
    .where(
      and(
        eq(cfdiStats.tenantId, actor.tenantId),
        eq(cfdiStats.environment, actor.environment),
        gte(cfdiStats.mes, range.desde ?? '0000-00'),
        lte(cfdiStats.mes, range.hasta ?? '9999-99'),
        gt(cfdiStats.cantidad, 0),
      ),
    )
    .orderBy(asc(cfdiStats.mes));

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
    csds: { total: csd.total, activos: csd.activos, por_vencer_30_dias: csd.porVencer },
    usuarios: { total: users.reduce((a, n) => a + n, 0), por_rol: members.usersByRole },
    api_keys: { activas: members.activeApiKeys },
  };
}
