import { and, asc, eq, gte, inArray, isNull, lte, notExists } from 'drizzle-orm';
import { wallClock } from '../../cfdi/time.ts';
import { receivedCfdis, satDownloads, satDownloadSyncs, satMetadata, type Environment } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { ServiceError } from '../../lib/service-error.ts';
import type { SatDownloadInput } from './prechecks.ts';
import { toSatDownloadSync } from './schemas.ts';
import { requestSatDownload, type SatDownloadRequestDeps } from './service.ts';

/**
 * The scheduled sync (issue 39, opt-in per tenant and environment): each day's metadata in both directions, then the
 * XML of the received vigentes not stored yet. It only makes requests, as POST /sat-downloads does (`origin: sync`),
 * with the same pre-checks and the same local 5002/5005 guard; the job moves them.
 */

/** SAT's days are Mexico City's (the dates of a request are SAT's local time). */
const SAT_ZONE = 'America/Mexico_City';
/**
 * A CFDI may be stamped up to 72 h after its `Fecha`, and SAT's dates filter on `Fecha`: a day is asked once those
 * 72 h have passed after its end, so its listing is whole (SAT accepts a period twice at most: asking early wastes one).
 */
export const SYNC_SETTLE_DAYS = 3;
/** Days one run asks for at most (a sync that was off or down catches up over several runs). */
const MAX_DAYS_PER_RUN = 7;

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The last day the sync may ask for at `now`: the one whose end is at least SYNC_SETTLE_DAYS days back. */
const lastSettledDay = (now: Date) => addDays(wallClock(now, SAT_ZONE).slice(0, 10), -1 - SYNC_SETTLE_DAYS);

const scoped = (actor: Pick<Actor, 'tenantId' | 'environment'>) =>
  and(eq(satDownloadSyncs.tenantId, actor.tenantId), eq(satDownloadSyncs.environment, actor.environment));

export async function getSatDownloadSync(deps: Pick<SatDownloadRequestDeps, 'db'>, actor: Actor) {
  const [row] = await deps.db.select().from(satDownloadSyncs).where(scoped(actor));
  return toSatDownloadSync(row);
}

/** Turns the sync on or off for the caller's environment; turned on again, it goes on from the day it had reached. */
export async function putSatDownloadSync(deps: Pick<SatDownloadRequestDeps, 'db' | 'now'>, actor: Actor, input: { enabled: boolean }) {
  const at = deps.now().toISOString();
  // One statement: an upsert on the (tenant, environment) unique index.
  const [row] = await deps.db
    .insert(satDownloadSyncs)
    .values({
      id: newId('satsync', deps.now().getTime()),
      tenantId: actor.tenantId,
      environment: actor.environment,
      enabled: input.enabled,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoUpdate({ target: [satDownloadSyncs.tenantId, satDownloadSyncs.environment], set: { enabled: input.enabled, updatedAt: at } })
    .returning();
  return toSatDownloadSync(row);
}

const isConflictOn = (err: unknown, field: string) => err instanceof ServiceError && err.kind === 'conflict' && err.details.some((d) => d.field === field);

type Outcome = { requested: string[]; covered: string[] };

/** One request of the sync; a period already requested (5002/5005 locally) is covered, not an error. */
async function ask(deps: SatDownloadRequestDeps, scope: Scope, input: SatDownloadInput, done: Outcome) {
  try {
    const { data } = await requestSatDownload(deps, scope, input, { origin: 'sync' });
    done.requested.push(data[0]!.id);
  } catch (err) {
    if (!isConflictOn(err, 'desde')) throw err;
    done.covered.push(`${input.direction} ${input.kind} ${input.desde}`);
  }
}

interface Scope {
  tenantId: string;
  environment: Environment;
}

/**
 * One run for every tenant and environment opted in: (1) each settled day after `synced_through` (the first run: the
 * last settled day only), metadata received and issued; (2) each received metadata request of the sync that ended
 * downloaded and was not followed up: the XML of the same period when some vigente UUID it listed is not in
 * received_cfdis. No FIEL (or an expired one): skipped, with a log line and `last_result` saying so.
 */
export async function runSatDownloadSync(deps: SatDownloadRequestDeps & { logger: Logger }) {
  const totals = { tenants: 0, requested: 0, skipped: 0 };
  const rows = await deps.db.select().from(satDownloadSyncs).where(eq(satDownloadSyncs.enabled, true)).orderBy(asc(satDownloadSyncs.id));
  for (const row of rows) {
    const scope = { tenantId: row.tenantId, environment: row.environment };
    const done: Outcome = { requested: [], covered: [] };
    let through = row.syncedThrough;
    let result: string;
    try {
      const last = lastSettledDay(deps.now());
      let day = through ? addDays(through, 1) : last;
      for (let n = 0; day <= last && n < MAX_DAYS_PER_RUN; n++, day = addDays(day, 1)) {
        for (const direction of ['received', 'issued'] as const) await ask(deps, scope, { direction, kind: 'metadata', desde: day, hasta: day }, done);
        through = day;
      }
      await followUp(deps, scope, done);
      result = `requested ${done.requested.length}${done.covered.length ? `; already requested: ${done.covered.join(', ')}` : ''}`;
      totals.tenants++;
      totals.requested += done.requested.length;
      if (done.requested.length + done.covered.length > 0)
        deps.logger.info('SAT download sync', { tenant_id: row.tenantId, environment: row.environment, ...done });
    } catch (err) {
      // One tenant's trouble stops its own run only; what it requested before stays recorded (`synced_through`).
      totals.skipped++;
      if (isConflictOn(err, 'fiel')) {
        result = `skipped: ${(err as ServiceError).details[0]?.issue ?? (err as ServiceError).message}`;
        deps.logger.warn('SAT download sync skipped: no usable FIEL', { tenant_id: row.tenantId, environment: row.environment, reason: result });
      } else {
        result = `failed: ${err instanceof Error ? err.message : String(err)}`;
        deps.logger.error('SAT download sync failed', { tenant_id: row.tenantId, environment: row.environment, reason: result });
      }
    }
    const at = deps.now().toISOString();
    await deps.db.update(satDownloadSyncs).set({ syncedThrough: through, lastRunAt: at, lastResult: result }).where(eq(satDownloadSyncs.id, row.id));
  }
  return totals;
}

/** Received metadata of the sync, downloaded, not followed up: the XML of its period when a vigente UUID is missing. */
async function followUp(deps: SatDownloadRequestDeps, scope: Scope, done: Outcome) {
  const pending = await deps.db
    .select()
    .from(satDownloads)
    .where(
      and(
        eq(satDownloads.tenantId, scope.tenantId),
        eq(satDownloads.environment, scope.environment),
        eq(satDownloads.origin, 'sync'),
        eq(satDownloads.direction, 'received'),
        eq(satDownloads.kind, 'metadata'),
        inArray(satDownloads.status, ['downloaded', 'empty']),
        isNull(satDownloads.followedUpAt),
      ),
    )
    .orderBy(asc(satDownloads.id));
  for (const r of pending) {
    const received = deps.db
      .select({ id: satDownloads.id })
      .from(satDownloads)
      .where(
        and(
          eq(satDownloads.tenantId, scope.tenantId),
          eq(satDownloads.environment, scope.environment),
          eq(satDownloads.direction, 'received'),
          eq(satDownloads.kind, 'metadata'),
        ),
      );
    const [missing] =
      r.status === 'downloaded'
        ? await deps.db
            .select({ uuid: satMetadata.uuid })
            .from(satMetadata)
            .where(
              and(
                eq(satMetadata.tenantId, scope.tenantId),
                eq(satMetadata.environment, scope.environment),
                inArray(satMetadata.satDownloadId, received),
                eq(satMetadata.estatus, '1'),
                gte(satMetadata.fechaEmision, r.desde.replace('T', ' ')),
                lte(satMetadata.fechaEmision, r.hasta.replace('T', ' ')),
                notExists(
                  deps.db
                    .select({ id: receivedCfdis.id })
                    .from(receivedCfdis)
                    .where(
                      and(
                        eq(receivedCfdis.tenantId, scope.tenantId),
                        eq(receivedCfdis.environment, scope.environment),
                        eq(receivedCfdis.uuid, satMetadata.uuid),
                      ),
                    ),
                ),
              ),
            )
            .limit(1)
        : [];
    if (missing) await ask(deps, scope, { direction: 'received', kind: 'xml', desde: r.desde, hasta: r.hasta }, done);
    await deps.db.update(satDownloads).set({ followedUpAt: deps.now().toISOString() }).where(eq(satDownloads.id, r.id));
  }
}
