import type { Principal } from './authenticate.ts';

/**
 * Resolved credentials, so a busy API key does not cost database reads on every call. Entries live at most
 * `ttlMs`; any identity write in a tenant (key revoked, user changed or deleted, password, profile, plan) drops
 * that tenant's entries on every instance (src/lib/identity-changes.ts), the TTL bounding only a missed notice.
 */
export class CredentialCache {
  private entries = new Map<string, { principal: Principal; expires: number }>();
  /** Moves on every drop: a credential read before a drop is not cached after it (it may be what was dropped). */
  private drops = 0;

  constructor(
    private readonly ttlMs = 10_000,
    private readonly maxEntries = 50_000,
  ) {}

  get(key: string, nowMs: number): Principal | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.principal;
  }

  /** Read before resolving a credential; `set` then keeps it only if nothing was dropped meanwhile. */
  get generation(): number {
    return this.drops;
  }

  set(key: string, principal: Principal, nowMs: number, readAt: number, notAfterMs = Infinity): void {
    if (readAt !== this.drops) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { principal, expires: Math.min(nowMs + this.ttlMs, notAfterMs) });
  }

  /** Drops the tenant's entries, or every entry for `undefined`. */
  forget(tenantId: string | undefined): void {
    this.drops++;
    if (tenantId === undefined) this.entries.clear();
    else for (const [key, entry] of this.entries) if (entry.principal.actor.tenantId === tenantId) this.entries.delete(key);
  }
}
