import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { prepared } from '../../db/prepared.ts';
import { tenants } from '../../db/schema/index.ts';
import { tenantQueries, type Branding } from './queries.ts';
import type { TenantRow } from './schemas.ts';

const TTL_MS = 10_000;
interface TenantCache {
  rows: Map<string, { row: TenantRow; expires: number }>;
  /** The branding summary (no logo bytes), `undefined` when the tenant has none: GET /tenants/me shows it. */
  branding: Map<string, { branding: Branding | undefined; expires: number }>;
  /** Moves on every drop: a row read before a drop is not kept after it. */
  drops: number;
}
const caches = new WeakMap<Db, TenantCache>();

/**
 * The tenant row, read at most once per 10 s: every authenticated request needs its plan and most handlers its
 * fiscal data, and a SQLite read costs more than the rest of the gateway. Identity writes (the API's, the set-plan
 * command's) drop it on every instance (`forgetTenant` on their announcement, src/lib/identity-changes.ts); a change
 * made with SQL is seen within 10 s.
 */
export async function findTenant(db: Db, id: string, nowMs: number): Promise<TenantRow | undefined> {
  const cache = cacheOf(db);
  const hit = cache.rows.get(id);
  if (hit && hit.expires > nowMs) return hit.row;
  const readAt = cache.drops;
  const [row] = await prepared(db, 'tenantById', (d) =>
    d
      .select()
      .from(tenants)
      .where(eq(tenants.id, sql.placeholder('id')))
      .prepare(),
  ).execute({ id });
  if (!row) {
    cache.rows.delete(id);
    return undefined;
  }
  if (readAt !== cache.drops) return row;
  if (cache.rows.size > 50_000) cache.rows.clear();
  cache.rows.set(id, { row, expires: nowMs + TTL_MS });
  return row;
}

/**
 * The tenant's branding summary, read at most once per 10 s like its row: GET /tenants/me would otherwise cost a
 * SQLite read on every call. Every branding write goes through the auth backend, which announces it like an identity
 * write, so every instance drops it; the writing request drops it itself before answering with the new profile.
 */
export async function findBranding(db: Db, id: string, nowMs: number): Promise<Branding | undefined> {
  const cache = cacheOf(db);
  const hit = cache.branding.get(id);
  if (hit && hit.expires > nowMs) return hit.branding;
  const readAt = cache.drops;
  const branding = await tenantQueries(db).branding(db, id);
  if (readAt !== cache.drops) return branding;
  if (cache.branding.size > 50_000) cache.branding.clear();
  cache.branding.set(id, { branding, expires: nowMs + TTL_MS });
  return branding;
}

function cacheOf(db: Db): TenantCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = { rows: new Map(), branding: new Map(), drops: 0 }));
  return cache;
}

/** Drops the tenant's row and branding, or every tenant's for `undefined`. */
export function forgetTenant(db: Db, id: string | undefined): void {
  const cache = caches.get(db);
  if (!cache) return;
  cache.drops++;
  if (id === undefined) {
    cache.rows.clear();
    cache.branding.clear();
  } else {
    cache.rows.delete(id);
    cache.branding.delete(id);
  }
}
