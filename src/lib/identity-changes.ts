import { forDialect, type Db } from '../db/index.ts';
import { postgresOf } from '../db/engine.ts';

/** The PostgreSQL channel every instance listens on; a notice's payload is the tenant id whose entries are stale. */
const CHANNEL = 'cfdi_cache';

/** Drops what a cache holds for the tenant, or everything for `undefined` (notices may have been missed). */
type Drop = (tenantId: string | undefined) => void;

const watchers = new WeakMap<Db, Set<Drop>>();
/** SQLite served by several processes (src/cluster): hands an announcement to the others; resolves once each dropped it. */
const relays = new WeakMap<Db, (tenantId: string) => Promise<void>>();

/**
 * Tells every instance on this database that what it cached about a tenant (resolved credentials, the tenant row
 * and its plan) is stale: this process at once, and on PostgreSQL every other one through NOTIFY. Called after the
 * write committed, so an instance that drops its entry reads the new row.
 */
export async function announceIdentityChange(db: Db, tenantId: string): Promise<void> {
  for (const drop of watchers.get(db) ?? []) drop(tenantId);
  await forDialect(db, {
    // One process: the loop above told everyone; several: the supervisor tells the others before the answer goes out.
    sqlite: async () => relays.get(db)?.(tenantId),
    postgres: async () => void (await postgresOf(db)!.notify(CHANNEL, tenantId)),
  })();
}

/**
 * Calls `drop` for every change announced on this database: in this process, and on PostgreSQL, unless `listen` is
 * false, by any instance (LISTEN, on a connection of its own). Each time that connection (re)connects,
 * `drop(undefined)`: notices sent while it was down are lost, and the caches' TTL would otherwise be the only bound.
 * Resolves once listening.
 */
export async function watchIdentityChanges(db: Db, drop: Drop, listen = true): Promise<void> {
  let local = watchers.get(db);
  if (!local) watchers.set(db, (local = new Set()));
  local.add(drop);
  if (!listen) return;
  await forDialect(db, {
    sqlite: async () => {},
    postgres: async () => {
      await postgresOf(db)!.listen(
        CHANNEL,
        (tenantId) => drop(tenantId),
        () => drop(undefined),
      );
    },
  })();
}

/**
 * SQLite served by several processes: every change announced here is also handed to `relay` (which tells the other
 * processes and resolves once they have dropped their entries). Returns the function that delivers another process's
 * announcement to this one's watchers.
 */
export function relayIdentityChanges(db: Db, relay: (tenantId: string) => Promise<void>): (tenantId: string) => void {
  relays.set(db, relay);
  return (tenantId) => {
    for (const drop of watchers.get(db) ?? []) drop(tenantId);
  };
}
