import { and, asc, eq, gt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { series, type Environment } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { invalidInput, conflict, notFound } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import { prepared } from '../../db/prepared.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { seriesQueries } from './queries.ts';
import { toSeries, type SeriesCreate, type SeriesPatch, type SeriesRow } from './schemas.ts';
import { withTransaction, type DbOrTx } from '../../db/index.ts';
import { uniqueViolation } from '../../db/engine.ts';

export interface SeriesDeps {
  db: Db;
  now: () => Date;
}

export interface Scope {
  tenantId: string;
  environment: Environment;
}

/** The database or a transaction of it: allocateFolio runs inside the caller's invoice transaction. */

/** Name of the series created on first use when a tenant issues without one. */
const DEFAULT_SERIE = 'A';

const scoped = (s: Scope) => and(eq(series.tenantId, s.tenantId), eq(series.environment, s.environment));

async function getOr404(db: DbOrTx, actor: Actor, id: string): Promise<SeriesRow> {
  const row = (
    await db
      .select()
      .from(series)
      .where(and(eq(series.id, id), scoped(actor)))
  )[0];
  if (!row) throw notFound('Series');
  return row;
}

const duplicate = (serie: string) => conflict('Series already exists', [{ field: 'serie', issue: `${serie} already exists in this environment` }]);
const unknownSerie = (serie: string) => invalidInput('Unknown series', [{ field: 'serie', issue: `${serie} does not exist; create it with POST /series` }]);

/** The first series of an environment becomes its default whatever `default` says: one default always exists. */
export async function createSeries(deps: SeriesDeps, actor: Actor, input: SeriesCreate, bindIdempotency?: IdempotencyClaim['bind']) {
  const now = deps.now();
  const stamp = now.toISOString();
  const id = newId('ser', now.getTime());
  try {
    // serializable: the series and the default read decide the insert (the unique indexes are the backstop)
    await withTransaction(deps.db, { isolation: 'serializable', name: 'series.create' }, async (tx) => {
      if (
        (
          await tx
            .select({ id: series.id })
            .from(series)
            .where(and(scoped(actor), eq(series.serie, input.serie)))
        )[0]
      )
        throw duplicate(input.serie);
      const hasDefault =
        (
          await tx
            .select({ id: series.id })
            .from(series)
            .where(and(scoped(actor), eq(series.isDefault, true)))
        )[0] !== undefined;
      const isDefault = input.default === true || !hasDefault;
      if (isDefault && hasDefault) {
        await tx
          .update(series)
          .set({ isDefault: false, updatedAt: stamp })
          .where(and(scoped(actor), eq(series.isDefault, true)));
      }
      await tx.insert(series).values({
        id,
        tenantId: actor.tenantId,
        environment: actor.environment,
        serie: input.serie,
        nextFolio: input.folio_inicial ?? 1,
        isDefault,
        descripcion: input.descripcion ?? null,
        createdAt: stamp,
        updatedAt: stamp,
      });
      await bindIdempotency?.(tx, id);
    });
  } catch (err) {
    const violated = uniqueViolation(err);
    // Only a concurrent writer gets here: the checks above run first in the same transaction.
    if (violated?.table === 'series' && violated.columns.includes('serie')) throw duplicate(input.serie);
    if (violated?.table === 'series')
      throw conflict('The default series changed meanwhile; retry', [{ field: 'default', issue: 'another default series was created at the same time' }]);
    throw err;
  }
  return toSeries(await getOr404(deps.db, actor, id));
}

export async function listSeries(deps: SeriesDeps, actor: Actor, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(series)
    .where(and(scoped(actor), after ? gt(series.id, after) : undefined))
    .orderBy(asc(series.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, toSeries);
}

export const getSeries = async (deps: SeriesDeps, actor: Actor, id: string) => toSeries(await getOr404(deps.db, actor, id));

export async function updateSeries(deps: SeriesDeps, actor: Actor, id: string, patch: SeriesPatch) {
  const stamp = deps.now().toISOString();
  // serializable: the default's check reads what the update changes; the folio move is guarded in its UPDATE
  await withTransaction(deps.db, { isolation: 'serializable', name: 'series.update' }, async (tx) => {
    const row = await getOr404(tx, actor, id);
    if (patch.default === false && row.isDefault) {
      throw conflict('A default series is required', [
        { field: 'default', issue: `${row.serie} is the default series; make another series the default (default: true) instead` },
      ]);
    }
    if (patch.folio_inicial !== undefined) {
      // Guarded in the UPDATE itself: a folio taken meanwhile cannot be handed out again.
      const moved = (
        await tx
          .update(series)
          .set({ nextFolio: patch.folio_inicial })
          .where(and(eq(series.id, row.id), scoped(actor), sql`${series.nextFolio} <= ${patch.folio_inicial}`))
          .returning({ id: series.id })
      )[0];
      if (!moved) {
        const next = (await getOr404(tx, actor, id)).nextFolio;
        throw conflict('Folios only move forward', [
          { field: 'folio_inicial', issue: `must be at least ${next}, the next folio of ${row.serie}: folios already used cannot be reused` },
        ]);
      }
    }
    if (patch.default === true && !row.isDefault) {
      await tx
        .update(series)
        .set({ isDefault: false, updatedAt: stamp })
        .where(and(scoped(actor), eq(series.isDefault, true), ne(series.id, row.id)));
    }
    await tx
      .update(series)
      .set({
        ...(patch.default === true && { isDefault: true }),
        ...(patch.descripcion !== undefined && { descripcion: patch.descripcion }),
        updatedAt: stamp,
      })
      .where(and(eq(series.id, row.id), scoped(actor)));
  });
  return getSeries(deps, actor, id);
}

const p = sql.placeholder;
const inScope = and(eq(series.tenantId, p('tenantId')), eq(series.environment, p('environment')));
/** The series named `serie`, or the default one. */
const named = (db: DbOrTx, serie: string | undefined) => (serie !== undefined ? eq(series.serie, p('serie')) : seriesQueries(db).isDefault());
const scopeValues = (scope: Scope, serie: string | undefined) => ({ tenantId: scope.tenantId, environment: scope.environment, serie });

/**
 * Takes the next folio of the matching series (by name, else the default) in one UPDATE … RETURNING; undefined when
 * no series matches. Prepared: it runs for every invoice.
 */
async function bump(tx: DbOrTx, scope: Scope, serie: string | undefined): Promise<{ serie: string; folio: number } | undefined> {
  const update = prepared(tx, serie !== undefined ? 'series.bumpNamed' : 'series.bumpDefault', (d) =>
    d
      .update(series)
      .set({ nextFolio: sql`${series.nextFolio} + 1` })
      .where(and(inScope, named(d, serie)))
      .returning({ serie: series.serie, nextFolio: series.nextFolio })
      .prepare(),
  );
  const [row] = await update.execute(scopeValues(scope, serie));
  return row ? { serie: row.serie, folio: row.nextFolio - 1 } : undefined;
}

/**
 * Assigns the next folio. Call it inside the transaction that inserts the invoice: if that transaction rolls
 * back, the folio is not consumed, so folios stay consecutive. With `serie`, that series (400 naming `serie` when
 * it does not exist); without, the default series, created as "A" on first use.
 */
export async function allocateFolio(tx: DbOrTx, scope: Scope, serie?: string): Promise<{ serie: string; folio: number }> {
  if (serie !== undefined) {
    const taken = await bump(tx, scope, serie);
    if (!taken) throw unknownSerie(serie);
    return taken;
  }
  const taken = await bump(tx, scope, undefined);
  if (taken) return taken;
  const created = (
    await tx
      .insert(series)
      .values({ id: newId('ser'), tenantId: scope.tenantId, environment: scope.environment, serie: DEFAULT_SERIE, nextFolio: 2, isDefault: true })
      .onConflictDoNothing()
      .returning({ id: series.id })
  )[0];
  if (created) return { serie: DEFAULT_SERIE, folio: 1 };
  // Only when the one-default invariant was broken outside the API: "A" exists without being the default.
  const fromA = await bump(tx, scope, DEFAULT_SERIE);
  if (!fromA) throw new Error('no default series, and series A could not be created');
  return fromA;
}

/**
 * In a group commit's `ahead` (withGroupCommit): the folio allocateFolio will give this caller if each caller of the
 * group before it takes one of the same series. A guess to prepare work with, never a folio to record: the caller
 * compares it with what allocateFolio then answers. `group` carries the count from one caller to the next.
 */
export async function expectedFolio(
  tx: DbOrTx,
  scope: Scope,
  serie: string | undefined,
  group: Map<string, unknown>,
): Promise<{ serie: string; folio: number }> {
  const key = `folio ${scope.tenantId} ${scope.environment} ${serie ?? ''}`;
  const next = (group.get(key) as { serie: string; folio: number } | undefined) ?? (await peekFolio(tx, scope, serie));
  group.set(key, { serie: next.serie, folio: next.folio + 1 });
  return next;
}

/** What allocateFolio would answer now, consuming nothing (POST /cfdis/validate). */
export async function peekFolio(db: DbOrTx, scope: Scope, serie?: string): Promise<{ serie: string; folio: number }> {
  const select = prepared(db, serie !== undefined ? 'series.peekNamed' : 'series.peekDefault', (d) =>
    d
      .select({ serie: series.serie, nextFolio: series.nextFolio })
      .from(series)
      .where(and(inScope, named(d, serie)))
      .prepare(),
  );
  const [row] = await select.execute(scopeValues(scope, serie));
  if (row) return { serie: row.serie, folio: row.nextFolio };
  if (serie !== undefined) throw unknownSerie(serie);
  const a = (
    await db
      .select({ next: series.nextFolio })
      .from(series)
      .where(and(scoped(scope), eq(series.serie, DEFAULT_SERIE)))
  )[0];
  return { serie: DEFAULT_SERIE, folio: a?.next ?? 1 };
}
