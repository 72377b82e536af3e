import { eq, sql } from 'drizzle-orm';
import { type Lista69b, parseLista69b } from '../../cfdi/received/lista-69b.ts';
import type { Db } from '../../db/client.ts';
import { type DbOrTx, withTransaction } from '../../db/index.ts';
import { type Environment, sat69bEntries, sat69bLists } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { invalidInput } from '../../lib/service-error.ts';
import { SANDBOX_69B } from '../../pac/sandbox.ts';
import { reflagAfterListLoad } from '../received/efos.ts';
import { ownListId, PUBLISHED } from './situaciones.ts';

/**
 * Lista 69-B (issue 39, build item 7; docs/decisions.md, "Lista 69-B"): the published list, loaded from SAT_69B_URL,
 * is everyone's (live mode); a list a tenant uploads is its own, in the environment it uploaded it in. What a tenant
 * sees of an RFC: its own list's entry when it has one, else the published list's (live) or the sandbox's (test).
 */

/** Rows a statement inserts at once: 3 parameters each, under SQLite's 32,766 and PostgreSQL's 65,535. */
const CHUNK = 2000;

/** Replaces one list whole with `list`, in one transaction: a reader sees the old list or the new one. */
async function replaceList(
  db: Db,
  row: { id: string; tenantId: string | null; environment: Environment | null; source: 'url' | 'upload' },
  list: Lista69b,
  now: Date,
) {
  // read committed: blind deletes and inserts of one list; two loads of the same list at once leave one of them whole (the row's key orders them)
  await withTransaction(db, { isolation: 'read committed', name: 'sat69b.replace' }, async (tx) => {
    await tx.delete(sat69bEntries).where(eq(sat69bEntries.listId, row.id));
    await tx.delete(sat69bLists).where(eq(sat69bLists.id, row.id));
    await tx.insert(sat69bLists).values({ ...row, listDate: list.date ?? null, entries: list.entries.length, loadedAt: now.toISOString() });
    for (let i = 0; i < list.entries.length; i += CHUNK)
      await tx
        .insert(sat69bEntries)
        .values(list.entries.slice(i, i + CHUNK).map((e) => ({ listId: row.id, tenantId: row.tenantId, rfc: e.rfc, situacion: e.situacion })));
  });
}

/** The published list from SAT_69B_URL (the daily task): fetched, parsed, stored as everyone's. Throws when unreachable. */
export async function loadPublishedLista69b(deps: { db: Db; now: () => Date; url: string; fetch?: typeof fetch }) {
  const res = await (deps.fetch ?? fetch)(deps.url, { signal: AbortSignal.timeout(120_000) });
  if (res.status !== 200) throw new Error(`Lista 69-B: ${deps.url} answered HTTP ${res.status}`);
  const list = parseLista69b(new Uint8Array(await res.arrayBuffer()));
  if (list.entries.length === 0)
    throw new Error(`Lista 69-B: ${deps.url} has no taxpayers (${list.problems.length} unreadable lines): the stored list is kept`);
  await replaceList(deps.db, { id: PUBLISHED, tenantId: null, environment: null, source: 'url' }, list, deps.now());
  const flagged = await reflagAfterListLoad(deps.db, deps.now(), 'published');
  return { date: list.date, entries: list.entries.length, problems: list.problems.length, flagged };
}

/** POST /sat-lists/69b: the tenant's own list in the actor's environment, replacing the one it uploaded before. */
export async function uploadLista69b(deps: { db: Db; now: () => Date }, actor: Actor, bytes: Uint8Array) {
  const list = parseLista69b(bytes);
  if (list.entries.length === 0)
    throw invalidInput('Invalid input', [
      {
        field: 'file',
        issue:
          list.problems.length > 0
            ? `no taxpayer could be read; line ${list.problems[0]!.line}: ${list.problems[0]!.issue}`
            : "has no taxpayers: expected SAT's Lista 69-B CSV (RFC in column 2, situación in column 4)",
      },
    ]);
  const scope = { tenantId: actor.tenantId, environment: actor.environment };
  await replaceList(deps.db, { id: ownListId(scope), tenantId: actor.tenantId, environment: actor.environment, source: 'upload' }, list, deps.now());
  await reflagAfterListLoad(deps.db, deps.now(), scope);
  return { ...(await lista69bStatus(deps, actor)), problems: list.problems.slice(0, 20) };
}

async function listSummary(db: DbOrTx, id: string) {
  const [row] = await db.select().from(sat69bLists).where(eq(sat69bLists.id, id));
  if (!row) return null;
  const counts = await db
    .select({ situacion: sat69bEntries.situacion, n: sql<number>`count(*)`.mapWith(Number) })
    .from(sat69bEntries)
    .where(eq(sat69bEntries.listId, id))
    .groupBy(sat69bEntries.situacion);
  const by = Object.fromEntries(counts.map((c) => [c.situacion, c.n]));
  return {
    list_date: row.listDate,
    loaded_at: row.loadedAt,
    entries: row.entries,
    counts: { presunto: by.presunto ?? 0, definitivo: by.definitivo ?? 0, desvirtuado: by.desvirtuado ?? 0, sentencia_favorable: by.sentencia_favorable ?? 0 },
  };
}

/** GET /sat-lists/69b: what the caller's environment consults: the published list (live) or the sandbox's (test), and its own. */
export async function lista69bStatus(deps: { db: Db }, actor: Actor) {
  const own = await listSummary(deps.db, ownListId({ tenantId: actor.tenantId, environment: actor.environment }));
  if (actor.environment === 'test') return { environment: actor.environment, published: null, sandbox: SANDBOX_69B.map((e) => ({ ...e })), own };
  return { environment: actor.environment, published: await listSummary(deps.db, PUBLISHED), sandbox: null, own };
}
