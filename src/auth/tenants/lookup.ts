import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { prepared } from '../../db/prepared.ts';
import { tenants } from '../../db/schema/index.ts';
import type { TenantRow } from './schemas.ts';

const TTL_MS = 10_000;
const caches = new WeakMap<Db, Map<string, { row: TenantRow; expires: number }>>();

/**
 * The tenant row, read at most once per 10 s: every authenticated request needs its plan and most handlers its
 * fiscal data, and a SQLite read costs more than the rest of the gateway. Writes through this process call
 * `forgetTenant`, so they are seen at once; a change made outside the API is seen within 10 s.
 */
export async function findTenant(db: Db, id: string, nowMs: number): Promise<TenantRow | undefined> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const hit = cache.get(id);
  if (hit && hit.expires > nowMs) return hit.row;
  const [row] = await prepared(db, 'tenantById', (d) =>
    d
      .select()
      .from(tenants)
      .where(eq(tenants.id, sql.placeholder('id')))
      .prepare(),
  ).execute({ id });
  if (!row) {
    cache.delete(id);
    return undefined;
  }
  if (cache.size > 50_000) cache.clear();
  cache.set(id, { row, expires: nowMs + TTL_MS });
  return row;
}

export function forgetTenant(db: Db, id: string): void {
  caches.get(db)?.delete(id);
}
