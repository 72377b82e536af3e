import { catalogEntry } from '../../catalogs/index.ts';
import { Dec } from '../../cfdi/decimal.ts';
import type { Db } from '../../db/client.ts';
import { statement } from '../../db/prepared.ts';
import type { Actor } from '../../lib/backend.ts';

/**
 * GET /stats: the tenant's activity in the caller's environment. CFDI figures come from `cfdi_stats` (kept by
 * triggers, a row per month × type × status × currency), so the cost does not grow with the number of invoices.
 */
interface StatRow {
  mes: string;
  tipo: string;
  status: string;
  moneda: string;
  cantidad: number;
  micros: number | bigint;
}

/** What counts as invoiced: stamped and not cancelled. */
const STANDING = new Set(['vigente', 'cancelacion_pendiente']);
const MILLION = Dec.parse('1000000');
const amount = (micros: bigint, moneda: string) => Dec.parse(micros.toString()).div(MILLION, 6).round(Number(catalogEntry('c_Moneda', moneda)?.decimales ?? 2)).toNumber();

export async function tenantStats(db: Db, actor: Actor, range: { desde?: string; hasta?: string }, now: Date) {
  const rows = await statement(
    db,
    `select mes, tipo, status, moneda, cantidad, total_micros as micros from cfdi_stats
     where tenant_id = ? and environment = ? and mes >= ? and mes <= ? and cantidad > 0 order by mes`,
    { safeIntegers: true },
  ).all(actor.tenantId, actor.environment, range.desde ?? '0000-00', range.hasta ?? '9999-99') as StatRow[];

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
    [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, micros]) => {
      const [tipo, moneda] = key.split('|') as [string, string];
      return { tipo, moneda, total: amount(micros, moneda) };
    });

  const csd = await statement(
    db,
    `select count(*) as total, coalesce(sum(status = 'active'), 0) as activos, coalesce(sum(status = 'active' and valid_to <= ?), 0) as porVencer
     from csds where tenant_id = ? and environment = ?`,
  ).get(new Date(now.getTime() + 30 * 86_400_000).toISOString(), actor.tenantId, actor.environment) as { total: number; activos: number; porVencer: number };
  const users = await statement(db, 'select role, count(*) as n from users where tenant_id = ? group by role').all(actor.tenantId) as { role: string; n: number }[];
  const keys = await statement(db, 'select count(*) as n from api_keys where tenant_id = ? and environment = ? and revoked_at is null').get(actor.tenantId, actor.environment) as { n: number };

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
    usuarios: { total: users.reduce((a, u) => a + u.n, 0), por_rol: Object.fromEntries(users.map((u) => [u.role, u.n])) },
    api_keys: { activas: keys.n },
  };
}
