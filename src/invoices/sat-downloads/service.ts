import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { withTransaction, type Tx } from '../../db/index.ts';
import { satDownloads, type SatDownloadStatus } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { newId } from '../../lib/ids.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { conflict, notFound } from '../../lib/service-error.ts';
import { enqueue } from '../../jobs/queue.ts';
import { fielSigner } from '../fiel/service.ts';
import { periodKey, precheckSatDownload, type SatDownloadInput } from './prechecks.ts';
import { toSatDownload } from './schemas.ts';

export const SAT_DOWNLOAD_JOB = 'sat_download';

export interface SatDownloadRequestDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  wakeJobs: () => void;
}

/** Whose request: a caller, or the scheduled sync on a tenant's behalf. */
type Scope = Pick<Actor, 'tenantId' | 'environment'>;

/** Still with SAT: a second identical request now would be SAT's 5005 (an identical one pending). */
const PENDING: readonly SatDownloadStatus[] = ['requested', 'accepted', 'in_progress', 'finished'];

const NO_FIEL = 'the tenant has no FIEL (e.firma): Descarga Masiva authenticates and signs with it; upload it with PUT /fiel';
const RULE_5002 = "SAT accepts the same period (direction, kind, dates and filters) at most twice, ever (5002 'Se han agotado las solicitudes de por vida')";

/**
 * Pre-checks the request with v1.5's rules, then records it (status `requested`) with the job that sends it, in one
 * transaction. SAT's 5002 is kept locally: a period is asked at most twice, the second time only when the first gave
 * no packages (rejected, empty, expired, stalled, failed); a third is a 409, never sent. `audit` writes the request's
 * audit row in the same transaction, `bindIdempotency` ties an Idempotency-Key to the record; `origin` says whether the
 * scheduled sync made it.
 */
export async function requestSatDownload(
  deps: SatDownloadRequestDeps,
  actor: Scope,
  input: SatDownloadInput,
  options: { audit?: (tx: Tx, id: string) => Promise<void>; bindIdempotency?: IdempotencyClaim['bind']; origin?: 'request' | 'sync' } = {},
) {
  const now = deps.now();
  const query = precheckSatDownload(input, now);
  const signer = await fielSigner(deps, actor.tenantId, { environment: actor.environment, purpose: 'descarga-masiva:request' });
  if (!signer) throw conflict('No FIEL', [{ field: 'fiel', issue: NO_FIEL }]);
  const key = periodKey(query);
  const id = newId('satdl', now.getTime());
  // serializable: the period's earlier requests are read to decide whether another may be made (SAT's 5002 rule)
  await withTransaction(deps.db, { isolation: 'serializable', name: 'sat_downloads.request' }, async (tx) => {
    const before = await tx
      .select()
      .from(satDownloads)
      .where(and(eq(satDownloads.tenantId, actor.tenantId), eq(satDownloads.environment, actor.environment), eq(satDownloads.periodKey, key)))
      .orderBy(asc(satDownloads.requestNumber));
    if (before.length >= 2)
      throw conflict('Period already requested twice', [
        { field: 'desde', issue: `this period was requested twice already (${before.map((r) => r.id).join(', ')}): ${RULE_5002}`, rule: '5002' },
      ]);
    const first = before[0];
    if (first && PENDING.includes(first.status))
      throw conflict('Period already being downloaded', [
        {
          field: 'desde',
          issue: `this period is being downloaded already (${first.id}, ${first.status}); a second identical request now would waste one of SAT's two`,
          rule: '5005',
        },
      ]);
    if (first && first.status === 'downloaded')
      throw conflict('Period already downloaded', [
        {
          field: 'desde',
          issue: `this period was downloaded already (${first.id}); ${RULE_5002}: the second is kept for a period that gave no packages`,
          rule: '5002',
        },
      ]);
    await tx.insert(satDownloads).values({
      id,
      tenantId: actor.tenantId,
      environment: actor.environment,
      direction: query.direction,
      kind: query.kind,
      desde: query.desde,
      hasta: query.hasta,
      tipo: query.tipo ?? null,
      rfc: query.rfc ?? null,
      periodKey: key,
      requestNumber: before.length + 1,
      status: 'requested',
      origin: options.origin ?? 'request',
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
    await enqueue(tx, now, {
      type: SAT_DOWNLOAD_JOB,
      payload: { satDownloadId: id },
      tenantId: actor.tenantId,
      environment: actor.environment,
      maxAttempts: 20,
    });
    await options.bindIdempotency?.(tx, id);
    await options.audit?.(tx, id);
  });
  deps.wakeJobs();
  return { data: [await getSatDownload(deps, actor, id)] };
}

const scoped = (actor: Scope) => and(eq(satDownloads.tenantId, actor.tenantId), eq(satDownloads.environment, actor.environment));

export async function getSatDownload(deps: Pick<SatDownloadRequestDeps, 'db'>, actor: Scope, id: string) {
  const [row] = await deps.db
    .select()
    .from(satDownloads)
    .where(and(scoped(actor), eq(satDownloads.id, id)));
  if (!row) throw notFound('SAT download');
  return toSatDownload(row);
}

/** Oldest first (keyset on id), as the other lists. */
export async function listSatDownloads(deps: Pick<SatDownloadRequestDeps, 'db'>, actor: Actor, query: { limit: number; cursor?: string }) {
  const after = decodeCursor(query.cursor);
  const rows = await deps.db
    .select()
    .from(satDownloads)
    .where(and(scoped(actor), after ? gt(satDownloads.id, after) : undefined))
    .orderBy(asc(satDownloads.id))
    .limit(query.limit + 1);
  return page(rows, query.limit, toSatDownload);
}
