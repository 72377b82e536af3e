import type { Principal } from './authenticate.ts';

/**
 * Resolved credentials, so a busy API key does not cost database reads on every call. Entries live at most
 * `ttlMs`; any identity write in a tenant (key revoked, user changed or deleted, password, profile, plan) drops
 * that tenant's entries at once, so revocation stays immediate in a single process.
 */
export class CredentialCache {
  private entries = new Map<string, { principal: Principal; expires: number }>();

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

  set(key: string, principal: Principal, nowMs: number, notAfterMs = Infinity): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { principal, expires: Math.min(nowMs + this.ttlMs, notAfterMs) });
  }

  invalidateTenant(tenantId: string): void {
    for (const [key, entry] of this.entries) if (entry.principal.actor.tenantId === tenantId) this.entries.delete(key);
  }
}
