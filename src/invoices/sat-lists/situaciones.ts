import { and, inArray } from 'drizzle-orm';
import type { Situacion69b } from '../../cfdi/received/lista-69b.ts';
import type { DbOrTx } from '../../db/index.ts';
import { type Environment, sat69bEntries } from '../../db/schema/index.ts';
import { SANDBOX_69B } from '../../pac/sandbox.ts';

/**
 * What a tenant sees of the Lista 69-B (docs/decisions.md, "Lista 69-B"), read by issuing (BLOCK_69B_RECEIVERS) and by
 * the received CFDI's flag; the lists themselves are loaded by service.ts.
 */

/** The published list's id: everyone's, live only. */
export const PUBLISHED = 'published';
/** A tenant's own list, one per environment. */
export const ownListId = (scope: { tenantId: string; environment: Environment }) => `${scope.tenantId}:${scope.environment}`;

/**
 * The situación of each RFC as the tenant's environment sees it (absent: not listed). Its own list's entry wins;
 * otherwise the published list's (live) or the sandbox simulator's (test, no call to SAT).
 */
export async function situaciones69b(db: DbOrTx, scope: { tenantId: string; environment: Environment }, rfcs: string[]): Promise<Map<string, Situacion69b>> {
  const wanted = [...new Set(rfcs.map((r) => r.toUpperCase()))];
  const out = new Map<string, Situacion69b>();
  if (wanted.length === 0) return out;
  const own = ownListId(scope);
  const lists = scope.environment === 'live' ? [own, PUBLISHED] : [own];
  const rows = await db
    .select({ listId: sat69bEntries.listId, rfc: sat69bEntries.rfc, situacion: sat69bEntries.situacion })
    .from(sat69bEntries)
    .where(and(inArray(sat69bEntries.listId, lists), inArray(sat69bEntries.rfc, wanted)));
  if (scope.environment === 'test') for (const e of SANDBOX_69B) if (wanted.includes(e.rfc)) out.set(e.rfc, e.situacion);
  for (const r of rows) if (r.listId === PUBLISHED) out.set(r.rfc, r.situacion);
  for (const r of rows) if (r.listId === own) out.set(r.rfc, r.situacion);
  return out;
}
