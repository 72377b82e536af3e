import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import { Dec } from '../../cfdi/decimal.ts';
import type { Db } from '../../db/client.ts';
import { retenciones } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { retencionQueries } from './queries.ts';

/** What counts as withheld: stamped and not cancelled, as for the CFDIs' amounts. */
const STANDING = new Set(['vigente', 'cancelacion_pendiente']);
const MILLION = Dec.parse('1000000');
const pesos = (micros: bigint) => Dec.parse(micros.toString()).div(MILLION, 6).round(2).toNumber();

/**
 * GET /stats' retenciones: counts by month of FechaExp and status, and the amounts of the standing ones (MontoTotRet
 * withheld, MontoTotOperacion), exact. Read by grouping the table (no counters kept): one row per month × status.
 */
export async function retencionStats(db: Db, actor: Pick<Actor, 'tenantId' | 'environment'>, range: { desde?: string; hasta?: string }) {
  const mes = sql<string>`substr(${retenciones.fechaExp}, 1, 7)`;
  const q = retencionQueries(db);
  const rows = await db
    .select({
      mes,
      status: retenciones.status,
      cantidad: sql<number>`count(*)`,
      retenido: q.sumMicros(sql`${retenciones.montoTotRet}`),
      operacion: q.sumMicros(sql`${retenciones.montoTotOperacion}`),
    })
    .from(retenciones)
    .where(
      and(
        eq(retenciones.tenantId, actor.tenantId),
        eq(retenciones.environment, actor.environment),
        // FechaExp is YYYY-MM-DDThh:mm:ss: the month range as text bounds.
        gte(retenciones.fechaExp, range.desde ?? '0000-00'),
        lte(retenciones.fechaExp, `${range.hasta ?? '9999-99'}-99`),
      ),
    )
    .groupBy(mes, retenciones.status)
    .orderBy(asc(mes), asc(retenciones.status));

  const porStatus: Record<string, number> = {};
  const meses = new Map<string, { cantidad: number; por_status: Record<string, number>; retenido: bigint; operacion: bigint }>();
  let total = 0;
  let retenido = 0n;
  let operacion = 0n;
  for (const r of rows) {
    const n = Number(r.cantidad);
    total += n;
    porStatus[r.status] = (porStatus[r.status] ?? 0) + n;
    let m = meses.get(r.mes);
    if (!m) meses.set(r.mes, (m = { cantidad: 0, por_status: {}, retenido: 0n, operacion: 0n }));
    m.cantidad += n;
    m.por_status[r.status] = (m.por_status[r.status] ?? 0) + n;
    if (STANDING.has(r.status)) {
      m.retenido += BigInt(r.retenido);
      m.operacion += BigInt(r.operacion);
      retenido += BigInt(r.retenido);
      operacion += BigInt(r.operacion);
    }
  }
  return {
    total,
    por_status: porStatus,
    monto_tot_ret: pesos(retenido),
    monto_tot_operacion: pesos(operacion),
    por_mes: [...meses.entries()].map(([mes, m]) => ({
      mes,
      cantidad: m.cantidad,
      por_status: m.por_status,
      monto_tot_ret: pesos(m.retenido),
      monto_tot_operacion: pesos(m.operacion),
    })),
  };
}
