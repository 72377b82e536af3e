import { and, eq } from 'drizzle-orm';
import { buildCancelacionXml, cancellationFactsOf, signEnveloped } from '../../cfdi/cancellation.ts';
import { wallClock } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import type { Tx } from '../../db/index.ts';
import { cfdiDocuments, cfdiDuplicateStamps, cfdis, type Environment } from '../../db/schema/index.ts';
import type { StampAttempt } from '../../pac/failover.ts';
import { enqueue, PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { recordAuditEntry } from '../../lib/audit.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Pac } from '../../pac/types.ts';
import { activeSigner } from '../csds/service.ts';
import { recordEvent } from '../events.ts';

/** After a stamp by one PAC: does a PAC the document was sent to before hold a stamp of it too? */
export const DUPLICATE_CHECK_JOB = 'cfdi.duplicate_check';
/** A second stamp found: cancel it at its PAC (motivo 02) and report it. */
export const DUPLICATE_CANCEL_JOB = 'cfdi.duplicate_cancel';

/**
 * A PAC left behind has no stamp of the document once it says so this long after the check began: past any answer in
 * flight (a request timeout) and Finkok's lag of seconds before `stamped` finds a stamp.
 */
const CHECK_FOR_MS = 30_000;
/** A PAC that does not answer is asked again, with backoff, for this long (an outage of days), never taken for a no. */
const ASK_FOR_MS = 72 * 3600_000;

interface Target {
  id: string;
  tenantId: string;
  environment: Environment;
}

export interface DuplicateDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  logger: Logger;
  pacFor(environment: Environment, stampedBy?: string | null): Pac | undefined;
}

/**
 * In the transaction that records a stamp by `stampedBy`: every other PAC this document was sent to without a settled
 * answer (sent or ambiguous: it may have stamped it) is asked, by a job, whether it holds a stamp of it too.
 */
export async function checkPacsLeftBehind(
  tx: Tx,
  cfdi: Target,
  stampedBy: string,
  attempts: readonly Pick<StampAttempt, 'pac' | 'outcome'>[],
  sealedXml: string,
  now: Date,
): Promise<void> {
  const leftBehind = new Set(attempts.filter((a) => a.pac !== stampedBy && (a.outcome === 'sent' || a.outcome === 'ambiguous')).map((a) => a.pac));
  for (const pac of leftBehind) {
    await enqueue(tx, now, {
      type: DUPLICATE_CHECK_JOB,
      tenantId: cfdi.tenantId,
      environment: cfdi.environment,
      payload: { cfdi_id: cfdi.id, pac, sealed_xml: sealedXml },
      runAt: new Date(now.getTime() + 5000),
      deadline: new Date(now.getTime() + ASK_FOR_MS),
      maxAttempts: 1000,
    });
  }
}

/**
 * Records a second stamp of a CFDI's document (a late answer after failover, or one found at a PAC left behind) and
 * queues its cancellation. The CFDI keeps the UUID first recorded. Once per UUID.
 */
export async function recordDuplicateStamp(tx: Tx, cfdi: Target, pac: string, uuid: string, now: Date): Promise<void> {
  const [row] = await tx
    .insert(cfdiDuplicateStamps)
    .values({
      cfdiId: cfdi.id,
      tenantId: cfdi.tenantId,
      environment: cfdi.environment,
      pac,
      uuid,
      status: 'cancelling',
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    })
    .onConflictDoNothing()
    .returning({ id: cfdiDuplicateStamps.id });
  if (!row) return;
  await enqueue(tx, now, {
    type: DUPLICATE_CANCEL_JOB,
    tenantId: cfdi.tenantId,
    environment: cfdi.environment,
    payload: { duplicate_id: row.id },
    maxAttempts: 50,
  });
}

const targetOf = (job: { payload: Record<string, unknown>; tenantId: string | null; environment: Environment | null }, id: string): Target => ({
  id,
  tenantId: job.tenantId!,
  environment: job.environment!,
});

/**
 * Asks a PAC left behind for its stamp of the document until it has one, or it has answered that it has none
 * CHECK_FOR_MS after the check began. A PAC that does not answer (down, an error page) has not said no: it is asked
 * again for as long as ASK_FOR_MS allows.
 */
export function duplicateCheckJobHandler(deps: DuplicateDeps): JobHandler {
  return {
    async run(job) {
      const cfdi = targetOf(job, job.payload.cfdi_id as string);
      const name = job.payload.pac as string;
      const pac = deps.pacFor(cfdi.environment, name);
      // A PAC that cannot be asked without stamping (SW) is not asked: docs/decisions.md, "PAC failover".
      if (!pac?.recover || pac.name !== name) return;
      const found = await pac.recover(job.payload.sealed_xml as string);
      if (found && !found.ok) throw new Error(`${name} did not answer whether it holds a stamp of it: ${found.message}`);
      if (!found) {
        if (deps.now().getTime() - Date.parse(job.createdAt) >= CHECK_FOR_MS) return;
        throw new Error(`${name} has no stamp of it (yet)`);
      }
      const [kept] = await deps.db.select({ uuid: cfdis.uuid }).from(cfdis).where(eq(cfdis.id, cfdi.id));
      if (!kept || kept.uuid === found.tfd.uuid) return;
      return (tx) => recordDuplicateStamp(tx, cfdi, name, found.tfd.uuid, deps.now());
    },
  };
}

/** Cancels a duplicate stamp at its PAC with motivo 02, signed with the issuer's CSD; reported once cancelled. */
export function duplicateCancelJobHandler(deps: DuplicateDeps): JobHandler {
  return {
    async run(job) {
      const id = job.payload.duplicate_id as number;
      const [dup] = await deps.db
        .select({ dup: cfdiDuplicateStamps, xml: cfdiDocuments.xml, keptUuid: cfdis.uuid })
        .from(cfdiDuplicateStamps)
        .innerJoin(cfdis, eq(cfdis.id, cfdiDuplicateStamps.cfdiId))
        .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
        .where(and(eq(cfdiDuplicateStamps.id, id), eq(cfdiDuplicateStamps.status, 'cancelling')));
      if (!dup) return;
      const { dup: d } = dup;
      const pac = deps.pacFor(d.environment, d.pac);
      if (!pac || pac.name !== d.pac) throw new PermanentJobError(`${d.pac} is no longer configured: cancel ${d.uuid} there by hand`);
      const now = deps.now();
      const signer = await activeSigner(deps, d.tenantId, d.environment);
      const facts = cancellationFactsOf(dup.xml.toString('utf8'));
      if (!signer || signer.rfc !== facts.rfcEmisor) throw new Error(`no active CSD of ${facts.rfcEmisor} to sign the cancellation of ${d.uuid}`);
      const folio = { uuid: d.uuid, motivo: '02' as const };
      const signedXml = signEnveloped(
        buildCancelacionXml({ rfcEmisor: facts.rfcEmisor, fecha: wallClock(now, 'America/Mexico_City'), folios: [folio] }),
        signer.signingKey,
      );
      const result = await pac.cancel({
        uuid: d.uuid,
        rfcEmisor: facts.rfcEmisor,
        rfcReceptor: facts.rfcReceptor,
        total: facts.total,
        sello: facts.sello,
        motivo: '02',
        signedXml,
        requiresAcceptance: false,
      });
      if (!result.ok) {
        if (result.retryable) throw new Error(result.message);
        throw new PermanentJobError(`${result.code}: ${result.message}`);
      }
      return async (tx) => {
        const at = deps.now().toISOString();
        await tx
          .update(cfdiDuplicateStamps)
          .set({ status: 'cancelled', detail: `EstatusUUID ${result.estatusUuid}`, updatedAt: at })
          .where(eq(cfdiDuplicateStamps.id, id));
        await recordEvent(tx, {
          tenantId: d.tenantId,
          environment: d.environment,
          type: 'cfdi.duplicate_stamp_cancelled',
          data: { cfdi_id: d.cfdiId, uuid: dup.keptUuid, duplicate_uuid: d.uuid, pac: d.pac },
          now: deps.now(),
        });
        await recordAuditEntry(tx, {
          tenantId: d.tenantId,
          environment: d.environment,
          actorType: 'system',
          actorId: 'pac-failover',
          action: 'cancelDuplicateStamp',
          method: 'POST',
          path: `/api/v1/cfdis/${d.cfdiId}`,
          status: 200,
          resourceType: 'cfdis',
          resourceId: d.cfdiId,
          requestId: `job:${job.id}`,
          createdAt: at,
        });
        return () => deps.logger.warn('duplicate stamp cancelled', { cfdi_id: d.cfdiId, kept_uuid: dup.keptUuid, duplicate_uuid: d.uuid, pac: d.pac });
      };
    },
    giveUp(job, error) {
      const reason = error instanceof Error ? error.message : String(error);
      return async (tx) => {
        await tx
          .update(cfdiDuplicateStamps)
          .set({ status: 'failed', detail: reason, updatedAt: deps.now().toISOString() })
          .where(eq(cfdiDuplicateStamps.id, job.payload.duplicate_id as number));
        return () => deps.logger.error('a duplicate stamp could not be cancelled: cancel it at its PAC by hand', { job_id: job.id, reason });
      };
    },
  };
}
