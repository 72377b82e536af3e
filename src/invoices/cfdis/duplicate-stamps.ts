import { and, eq } from 'drizzle-orm';
import { buildCancelacionXml, cancellationFactsOf, signEnveloped, type CancellationFacts } from '../../cfdi/cancellation.ts';
import { wallClock } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import type { DbOrTx, Tx } from '../../db/index.ts';
import { cfdiDocuments, cfdiDuplicateStamps, cfdis, type Environment } from '../../db/schema/index.ts';
import type { StampAttempt } from '../../pac/failover.ts';
import { enqueue, PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import { recordAuditEntry } from '../../lib/audit.ts';
import type { Logger } from '../../lib/logger.ts';
import type { CancelResult, Pac } from '../../pac/types.ts';
import { activeSigner } from '../csds/service.ts';
import { recordEvent, type EventType } from '../events.ts';

/**
 * A PAC left behind has no stamp of the document once it says so this long after the check began: past any answer in
 * flight (a request timeout) and Finkok's lag of seconds before `stamped` finds a stamp.
 */
const CHECK_FOR_MS = 30_000;
/** A PAC that does not answer is asked again, with backoff, for this long (an outage of days), never taken for a no. */
const ASK_FOR_MS = 72 * 3600_000;

/** A stamped document of one kind (a CFDI, a retención). */
interface Target {
  id: string;
  tenantId: string;
  environment: Environment;
}

/** A second stamp still being cancelled, as its kind's table holds it. */
export interface DuplicateToCancel {
  documentId: string;
  tenantId: string;
  environment: Environment;
  pac: string;
  uuid: string;
  /** The UUID the document keeps: the one first recorded. */
  keptUuid: string | null;
  /** The document's issuer, whose active CSD signs the cancellation. */
  rfcEmisor: string;
}

/**
 * What differs between the kinds of document a PAC stamps: their tables, how a cancellation is sent, their names. The
 * rules (who is asked, for how long, what is kept, motivo 02, the report) are this module's, one for every kind. A
 * kind is written in the module that owns its tables; `D` is what its cancellation needs besides the UUID.
 */
export interface DuplicateStampKind<D extends DuplicateToCancel = DuplicateToCancel> {
  /** After a stamp by one PAC: does a PAC the document was sent to before hold a stamp of it too? */
  checkJob: string;
  /** A second stamp found: cancel it at its PAC (motivo 02) and report it. */
  cancelJob: string;
  /** The document's id in the jobs' payloads and in the event's data (`cfdi_id`). */
  idKey: string;
  /** The document's collection in the API (`cfdis`): the audit entry's path and resource type. */
  resource: string;
  event: EventType;
  /** The namespace of its cancellation request (buildCancelacionXml). */
  cancelacion: 'cfdi' | 'retencion';
  /** The UUID the document holds; undefined when the document is gone. */
  heldUuid(db: DbOrTx, id: string): Promise<{ uuid: string | null } | undefined>;
  /** Records a second stamp, once per UUID: its row's id, undefined when it was recorded before. */
  insert(tx: Tx, document: Target, pac: string, uuid: string, now: Date): Promise<number | undefined>;
  /** The duplicate while it is still being cancelled. */
  cancelling(db: Db, id: number): Promise<D | undefined>;
  /** Sends the signed request to the PAC that made the duplicate; undefined when that PAC is not asked to cancel this kind. */
  send(pac: Pac, duplicate: D, signedXml: string): Promise<CancelResult> | undefined;
  /** How its cancellation ended: SAT's EstatusUUID, or why it failed for good. */
  settle(tx: Tx, id: number, status: 'cancelled' | 'failed', detail: string, at: string): Promise<void>;
}

export interface DuplicateDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  logger: Logger;
  pacFor(environment: Environment, stampedBy?: string | null): Pac | undefined;
}

/**
 * In the transaction that records a stamp by `stampedBy`: every other PAC this document was sent to is asked, by a job,
 * whether it holds a stamp of it too. Every request is recorded `sent` before it leaves, so this includes a PAC whose
 * answer was provider-side: on purpose, as a request a process died in may precede that answer, and asking costs a
 * few look-ups where a missed second stamp would stand at SAT.
 */
async function checkPacsLeftBehind(
  tx: Tx,
  kind: DuplicateStampKind,
  document: Target,
  stampedBy: string,
  attempts: readonly Pick<StampAttempt, 'pac' | 'outcome'>[],
  sealedXml: string,
  now: Date,
): Promise<void> {
  const leftBehind = new Set(attempts.filter((a) => a.pac !== stampedBy && (a.outcome === 'sent' || a.outcome === 'ambiguous')).map((a) => a.pac));
  for (const pac of leftBehind) {
    await enqueue(tx, now, {
      type: kind.checkJob,
      tenantId: document.tenantId,
      environment: document.environment,
      payload: { [kind.idKey]: document.id, pac, sealed_xml: sealedXml },
      runAt: new Date(now.getTime() + 5000),
      deadline: new Date(now.getTime() + ASK_FOR_MS),
      maxAttempts: 1000,
    });
  }
}

/**
 * Records a second stamp of a document (a late answer after failover, or one found at a PAC left behind) and queues
 * its cancellation. The document keeps the UUID first recorded. Once per UUID.
 */
async function recordDuplicateStamp(tx: Tx, kind: DuplicateStampKind, document: Target, pac: string, uuid: string, now: Date): Promise<void> {
  const id = await kind.insert(tx, document, pac, uuid, now);
  if (id === undefined) return;
  await enqueue(tx, now, {
    type: kind.cancelJob,
    tenantId: document.tenantId,
    environment: document.environment,
    payload: { duplicate_id: id },
    maxAttempts: 50,
  });
}

/**
 * In the transaction of a live stamp the failover router got (`recorded`: whether it is the document's stamp now):
 * the PACs this document was sent to before are asked whether they stamped it too; a stamp that arrives after
 * another PAC's was recorded (a late answer) is a duplicate, cancelled.
 */
export async function followRoutedStamp(
  tx: Tx,
  kind: DuplicateStampKind,
  document: Target,
  routed: { uuid: string; pac: string; attempts: readonly Pick<StampAttempt, 'pac' | 'outcome'>[]; recorded: boolean },
  sealedXml: string,
  now: Date,
): Promise<void> {
  // The sandbox stamps in process: nothing is left behind, no answer comes late.
  if (document.environment !== 'live') return;
  if (routed.recorded) return checkPacsLeftBehind(tx, kind, document, routed.pac, routed.attempts, sealedXml, now);
  const held = await kind.heldUuid(tx, document.id);
  if (held?.uuid && held.uuid !== routed.uuid) await recordDuplicateStamp(tx, kind, document, routed.pac, routed.uuid, now);
}

const targetOf = (job: { tenantId: string | null; environment: Environment | null }, id: string): Target => ({
  id,
  tenantId: job.tenantId!,
  environment: job.environment!,
});

/**
 * Asks a PAC left behind for its stamp of the document until it has one, or it has answered that it has none
 * CHECK_FOR_MS after the check began. A PAC that does not answer (down, an error page) has not said no: it is asked
 * again for as long as ASK_FOR_MS allows.
 */
export function duplicateCheckJobHandler(deps: DuplicateDeps, kind: DuplicateStampKind): JobHandler {
  return {
    async run(job) {
      const document = targetOf(job, job.payload[kind.idKey] as string);
      const name = job.payload.pac as string;
      const pac = deps.pacFor(document.environment, name);
      // A PAC that cannot be asked without stamping (SW) is not asked: docs/decisions.md, "PAC failover".
      if (!pac?.recover || pac.name !== name) return;
      const found = await pac.recover(job.payload.sealed_xml as string);
      if (found && !found.ok) throw new Error(`${name} did not answer whether it holds a stamp of it: ${found.message}`);
      if (!found) {
        if (deps.now().getTime() - Date.parse(job.createdAt) >= CHECK_FOR_MS) return;
        throw new Error(`${name} has no stamp of it (yet)`);
      }
      const kept = await kind.heldUuid(deps.db, document.id);
      if (!kept || kept.uuid === found.tfd.uuid) return;
      return (tx) => recordDuplicateStamp(tx, kind, document, name, found.tfd.uuid, deps.now());
    },
  };
}

/** Cancels a duplicate stamp at its PAC with motivo 02, signed with the issuer's CSD; reported once cancelled. */
export function duplicateCancelJobHandler<D extends DuplicateToCancel>(deps: DuplicateDeps, kind: DuplicateStampKind<D>): JobHandler {
  return {
    async run(job) {
      const id = job.payload.duplicate_id as number;
      const d = await kind.cancelling(deps.db, id);
      if (!d) return;
      const pac = deps.pacFor(d.environment, d.pac);
      if (!pac || pac.name !== d.pac) throw new PermanentJobError(`${d.pac} is no longer configured: cancel ${d.uuid} there by hand`);
      const now = deps.now();
      const signer = await activeSigner(deps, d.tenantId, d.environment);
      if (!signer || signer.rfc !== d.rfcEmisor) throw new Error(`no active CSD of ${d.rfcEmisor} to sign the cancellation of ${d.uuid}`);
      const folio = { uuid: d.uuid, motivo: '02' as const };
      const signedXml = signEnveloped(
        buildCancelacionXml({ rfcEmisor: d.rfcEmisor, fecha: wallClock(now, 'America/Mexico_City'), folios: [folio] }, kind.cancelacion),
        signer.signingKey,
      );
      const sent = kind.send(pac, d, signedXml);
      if (!sent) throw new PermanentJobError(`${d.pac} is not asked to cancel this kind of document here: cancel ${d.uuid} there by hand`);
      const result = await sent;
      if (!result.ok) {
        if (result.retryable) throw new Error(result.message);
        throw new PermanentJobError(`${result.code}: ${result.message}`);
      }
      return async (tx) => {
        const at = deps.now().toISOString();
        await kind.settle(tx, id, 'cancelled', `EstatusUUID ${result.estatusUuid}`, at);
        const report = { [kind.idKey]: d.documentId, uuid: d.keptUuid, duplicate_uuid: d.uuid, pac: d.pac };
        await recordEvent(tx, { tenantId: d.tenantId, environment: d.environment, type: kind.event, data: report, now: deps.now() });
        await recordAuditEntry(tx, {
          tenantId: d.tenantId,
          environment: d.environment,
          actorType: 'system',
          actorId: 'pac-failover',
          action: 'cancelDuplicateStamp',
          method: 'POST',
          path: `/api/v1/${kind.resource}/${d.documentId}`,
          status: 200,
          resourceType: kind.resource,
          resourceId: d.documentId,
          requestId: `job:${job.id}`,
          createdAt: at,
        });
        return () => deps.logger.warn('duplicate stamp cancelled', { ...report, kept_uuid: d.keptUuid });
      };
    },
    giveUp(job, error) {
      const reason = error instanceof Error ? error.message : String(error);
      return async (tx) => {
        await kind.settle(tx, job.payload.duplicate_id as number, 'failed', reason, deps.now().toISOString());
        return () => deps.logger.error('a duplicate stamp could not be cancelled: cancel it at its PAC by hand', { job_id: job.id, reason });
      };
    },
  };
}

/** A CFDI's duplicate stamps: cfdi_duplicate_stamps, cancelled with `Pac.cancel` (no receiver's acceptance for motivo 02 here). */
export const cfdiDuplicateStampKind: DuplicateStampKind<DuplicateToCancel & { facts: CancellationFacts }> = {
  checkJob: 'cfdi.duplicate_check',
  cancelJob: 'cfdi.duplicate_cancel',
  idKey: 'cfdi_id',
  resource: 'cfdis',
  event: 'cfdi.duplicate_stamp_cancelled',
  cancelacion: 'cfdi',
  heldUuid: async (db, id) => (await db.select({ uuid: cfdis.uuid }).from(cfdis).where(eq(cfdis.id, id)))[0],
  insert: async (tx, cfdi, pac, uuid, now) => {
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
    return row?.id;
  },
  cancelling: async (db, id) => {
    const [row] = await db
      .select({ dup: cfdiDuplicateStamps, xml: cfdiDocuments.xml, keptUuid: cfdis.uuid })
      .from(cfdiDuplicateStamps)
      .innerJoin(cfdis, eq(cfdis.id, cfdiDuplicateStamps.cfdiId))
      .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
      .where(and(eq(cfdiDuplicateStamps.id, id), eq(cfdiDuplicateStamps.status, 'cancelling')));
    if (!row) return undefined;
    const { dup } = row;
    const facts = cancellationFactsOf(row.xml.toString('utf8'));
    return {
      documentId: dup.cfdiId,
      tenantId: dup.tenantId,
      environment: dup.environment,
      pac: dup.pac,
      uuid: dup.uuid,
      keptUuid: row.keptUuid,
      rfcEmisor: facts.rfcEmisor,
      facts,
    };
  },
  send: (pac, d, signedXml) =>
    pac.cancel({
      uuid: d.uuid,
      rfcEmisor: d.rfcEmisor,
      rfcReceptor: d.facts.rfcReceptor,
      total: d.facts.total,
      sello: d.facts.sello,
      motivo: '02',
      signedXml,
      requiresAcceptance: false,
    }),
  settle: async (tx, id, status, detail, at) => {
    await tx.update(cfdiDuplicateStamps).set({ status, detail, updatedAt: at }).where(eq(cfdiDuplicateStamps.id, id));
  },
};
