import type { Db } from '../db/index.ts';

/** Drops what a cache holds for the tenant, or everything for `undefined` (notices may have been missed). */
export type Drop = (tenantId: string | undefined) => void;

/**
 * How identity changes reach the other processes or instances on the same database: the Coordination port's
 * `identityChanges` (src/topology), one implementation per deployment shape.
 */
export interface IdentityChanges {
  /** Tells the others that what they cached about the tenant is stale; resolves once they dropped it (or gave up waiting). */
  announce(tenantId: string): Promise<void>;
  /** Calls `drop` for every change another process or instance announces; resolves once it hears them. */
  listen(drop: Drop): Promise<void>;
}

const watchers = new WeakMap<Db, Set<Drop>>();
const others = new WeakMap<Db, IdentityChanges>();

/**
 * Tells every process on this database that what it cached about a tenant (resolved credentials, the tenant row and
 * its plan) is stale: this process at once, then the others through the deployment's `IdentityChanges`. Called
 * after the write committed, so a process that drops its entry reads the new row.
 */
export async function announceIdentityChange(db: Db, tenantId: string): Promise<void> {
  for (const drop of watchers.get(db) ?? []) drop(tenantId);
  await others.get(db)?.announce(tenantId);
}

/** The changes announced on this database reach the other processes through `across` (a process that serves none: the CLI). */
export function tellOthersThrough(db: Db, across: IdentityChanges): void {
  others.set(db, across);
}

/**
 * Calls `drop` for every change announced on this database: in this process, and by the others as `across` carries
 * them. Resolves once listening.
 */
export async function watchIdentityChanges(db: Db, drop: Drop, across: IdentityChanges): Promise<void> {
  let local = watchers.get(db);
  if (!local) watchers.set(db, (local = new Set()));
  local.add(drop);
  tellOthersThrough(db, across);
  await across.listen(drop);
}
