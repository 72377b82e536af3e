import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type DbOrTx, withTransaction } from '../../db/index.ts';
import { type Environment, receivedCfdis } from '../../db/schema/index.ts';
import { situaciones69b } from '../sat-lists/situaciones.ts';
import { recordStatusEvents } from './status.ts';

type Scope = { tenantId: string; environment: Environment };

/**
 * Sets efos_69b on the scope's received CFDI (all, or those from `rfcs`) to their issuer's situación on the Lista
 * 69-B the scope consults (sat-lists/service.ts), in the caller's transaction; a row whose issuer becomes listed
 * (presunto, definitivo) raises received_cfdi.efos_listed. Returns how many rows changed.
 */
export async function flagReceived69b(tx: DbOrTx, scope: Scope, now: Date, rfcs?: string[]): Promise<number> {
  const rows = await tx
    .select()
    .from(receivedCfdis)
    .where(
      and(
        eq(receivedCfdis.tenantId, scope.tenantId),
        eq(receivedCfdis.environment, scope.environment),
        rfcs ? inArray(receivedCfdis.emisorRfc, rfcs) : isNotNull(receivedCfdis.emisorRfc),
      ),
    );
  const mine = rows.filter((r) => r.emisorRfc);
  const situaciones = await situaciones69b(tx, scope, [...new Set(mine.map((r) => r.emisorRfc!.toUpperCase()))]);
  let changed = 0;
  for (const before of mine) {
    const efos69b = situaciones.get(before.emisorRfc!.toUpperCase()) ?? null;
    if (efos69b === before.efos69b) continue;
    const [after] = await tx.update(receivedCfdis).set({ efos69b, updatedAt: now.toISOString() }).where(eq(receivedCfdis.id, before.id)).returning();
    await recordStatusEvents(tx, before, after!, now);
    changed++;
  }
  return changed;
}

/** After a list loads: every scope that consults it (the tenant's, or every live scope for the published list), one transaction each. */
export async function reflagAfterListLoad(db: Db, now: Date, scope: Scope | 'published'): Promise<number> {
  const scopes: Scope[] =
    scope === 'published'
      ? (
          await db
            .select({ tenantId: receivedCfdis.tenantId })
            .from(receivedCfdis)
            .where(eq(receivedCfdis.environment, 'live'))
            .groupBy(sql`${receivedCfdis.tenantId}`)
        ).map((r) => ({ tenantId: r.tenantId, environment: 'live' as const }))
      : [scope];
  let changed = 0;
  // serializable: the flags read decide the writes and their events (each only on a change)
  for (const s of scopes)
    changed += await withTransaction(db, { isolation: 'serializable', name: 'received_cfdis.flag69b' }, (tx) => flagReceived69b(tx, s, now));
  return changed;
}
