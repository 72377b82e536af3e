import { and, eq, sql } from 'drizzle-orm';
import { tfdCadena, type Tfd } from '../../cfdi/tfd.ts';
import { zonedToUtc } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import { prepared } from '../../db/prepared.ts';
import { cfdiDocuments, cfdis, type CfdiStatus, type Environment, type TfdSummary } from '../../db/schema/index.ts';
import { PermanentJobError, RetryLaterError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Stamper } from './stamp-routing.ts';
import type { StampAttempt } from '../../pac/failover.ts';
import type { StampFailure } from '../../pac/types.ts';
import { cfdiDuplicateStampKind, followRoutedStamp } from './duplicate-stamps.ts';
import { transition, type TransitionOptions } from './lifecycle.ts';
import type { Tx } from '../../db/index.ts';
import { activeSigner } from '../csds/service.ts';
import { sealDraft, type SealDraft } from './seal-draft.ts';

export const STAMP_JOB = 'cfdi.stamp';

interface Target {
  id: string;
  tenantId: string;
  environment: Environment;
}

/** What a stamp writes on the invoice: its UUID, the stamping time in UTC and the TFD values of the summary. */
export interface StampValues {
  uuid: string;
  fechaTimbrado: string;
  tfd: TfdSummary;
}

/** A recorded stamp: what it wrote, and how many jobs it queued (webhook deliveries of its cfdi.timbrado, emails asked for before it). */
interface RecordedStamp extends StampValues {
  deliveries: number;
}

/** The one place the TFD becomes stored values: the record, and the 201 built from memory, both use it. */
function stampValuesOf(tfd: Tfd): StampValues {
  return {
    uuid: tfd.uuid,
    // FechaTimbrado is the PAC's local time in Mexico City, without a zone.
    fechaTimbrado: zonedToUtc(tfd.fechaTimbrado, 'America/Mexico_City').toISOString(),
    tfd: { sello_sat: tfd.selloSat, certificado_sat: tfd.noCertificadoSat, cadena_original_sat: tfdCadena(tfd) },
  };
}

const holderOfUuid = (tx: Tx, uuid: string) =>
  prepared(tx, 'cfdis.holderOfUuid', (d) =>
    d
      .select({ id: cfdis.id })
      .from(cfdis)
      .where(eq(cfdis.uuid, sql.placeholder('uuid')))
      .prepare(),
  ).execute({ uuid });

const storeStampedXml = (tx: Tx, id: string, xml: Buffer) =>
  prepared(tx, 'cfdis.storeStampedXml', (d) =>
    d
      .update(cfdiDocuments)
      .set({ xml: sql`${sql.placeholder('xml')}` })
      .where(eq(cfdiDocuments.cfdiId, sql.placeholder('id')))
      .prepare(),
  ).execute({ id, xml });

/**
 * The sealed document of an invoice whose folio was taken without it (SealDraft), stored once: the first seal stored
 * stands (another is the same bytes, or made with a CSD replaced meanwhile). Returns the stored document.
 */
export async function storeSealedXml(db: Db, id: string, xml: string): Promise<string> {
  await db
    .update(cfdiDocuments)
    .set({ xml: Buffer.from(xml, 'utf8') })
    .where(and(eq(cfdiDocuments.cfdiId, id), sql`length(${cfdiDocuments.xml}) = 0`));
  const [stored] = await db.select({ xml: cfdiDocuments.xml }).from(cfdiDocuments).where(eq(cfdiDocuments.cfdiId, id));
  return stored ? stored.xml.toString('utf8') : xml;
}

/**
 * Records a stamp once: only an invoice still `en_cola` moves to `vigente` (or a withdrawn one, stamped by an attempt
 * already in flight), so a late synchronous answer and a job retry cannot both write one (and the sandbox/PAC give
 * the same UUID for the same document anyway). `pac`: the provider that stamped it; `o.alongside` and `o.tookNoReceipts`
 * as TransitionOptions has them. Returns what it wrote, or undefined when it wrote nothing.
 */
export async function recordStamp(
  tx: Tx,
  cfdi: Target,
  stamped: { xml: string; tfd: Tfd },
  now: Date,
  pac: string,
  o: Pick<TransitionOptions, 'alongside' | 'tookNoReceipts'> = {},
): Promise<RecordedStamp | undefined> {
  const values = stampValuesOf(stamped.tfd);
  const stamp = { ...values, pac };
  // In the move's transaction: the jobs its reactions queued (emails) read the stamped document after it commits.
  const withDocument = (t: Tx) => [storeStampedXml(t, cfdi.id, Buffer.from(stamped.xml, 'utf8')), ...(o.alongside?.(t) ?? [])];
  let deliveries = await transition(tx, cfdi, 'en_cola', 'vigente', {
    reason: `stamped by ${pac}`,
    at: now,
    stamp,
    alongside: withDocument,
    tookNoReceipts: o.tookNoReceipts,
  });
  // Withdrawn while an attempt was already in flight, and that attempt stamped it: SAT has it, so it is vigente.
  deliveries ??= await transition(tx, cfdi, 'fallido', 'vigente', {
    reason: 'stamped by an attempt already in flight when it was withdrawn: cancel it if it is not wanted',
    at: now,
    stamp,
    alongside: withDocument,
  });
  if (deliveries !== undefined) return { ...values, deliveries };
  // Not moved (the moves refuse a UUID another CFDI holds): asked only now, so a stamp that moves reads nothing first.
  const [holder] = await holderOfUuid(tx, stamped.tfd.uuid);
  if (holder && holder.id !== cfdi.id) {
    // The PAC answered with a UUID another CFDI here already has: the very same document was stamped before (two
    // tenants with one RFC sent identical XML). A UUID belongs to one CFDI, so this one fails instead of a 500.
    await recordFailure(tx, cfdi, `307: this exact document was already stamped (UUID ${stamped.tfd.uuid}); issue it again`, now);
  }
  return undefined;
}

/**
 * recordStamp for a stamp the failover router got: the PACs this document was sent to before are asked whether they
 * stamped it too; a stamp that arrives after another PAC's was recorded (a late answer) is a duplicate, cancelled.
 */
export async function recordRoutedStamp(
  tx: Tx,
  cfdi: Target,
  routed: { result: { xml: string; tfd: Tfd }; pac: string; attempts: readonly Pick<StampAttempt, 'pac' | 'outcome'>[] },
  sealedXml: string,
  now: Date,
): Promise<RecordedStamp | undefined> {
  const recorded = await recordStamp(tx, cfdi, routed.result, now, routed.pac);
  const followed = { uuid: routed.result.tfd.uuid, pac: routed.pac, attempts: routed.attempts, recorded: recorded !== undefined };
  await followRoutedStamp(tx, cfdiDuplicateStampKind, cfdi, followed, sealedXml, now);
  return recorded;
}

/**
 * For an invoice stamped before its first write (a provider in this process): the values to insert it `vigente`
 * with, so that it is written once. Undefined when the UUID is already another invoice's: then it is written
 * `en_cola` and recordStamp fails it, as for a stamp that arrives later.
 */
export async function stampToInsert(tx: Tx, tfd: Tfd): Promise<StampValues | undefined> {
  const [holder] = await holderOfUuid(tx, tfd.uuid);
  return holder ? undefined : stampValuesOf(tfd);
}

/** Where a CFDI stands, read inside a transaction that decides on it (whether an email can be queued now). */
export async function stampStateOf(tx: Tx, id: string): Promise<{ status: CfdiStatus; uuid: string | null } | undefined> {
  return (await tx.select({ status: cfdis.status, uuid: cfdis.uuid }).from(cfdis).where(eq(cfdis.id, id)))[0];
}

/** The invoice could not be stamped for good: `fallido` with its reason (its reactions: cfdi.fallido…). Its folio stays used. */
export async function recordFailure(tx: Tx, cfdi: Target, reason: string, now: Date): Promise<boolean> {
  return (await transition(tx, cfdi, 'en_cola', 'fallido', { reason, at: now })) !== undefined;
}

/**
 * A stamp job's routed answer that is not a stamp, as the queue takes it (CFDIs and retenciones alike): a definitive
 * refusal ends the job (its giveUp records it fallido), the rest is tried again with the job's backoff.
 */
export function unstampedError(result: StampFailure, retryAt: string | undefined): Error {
  if (result.class === 'definitive') return new PermanentJobError(`${result.code}: ${result.message}`);
  // Not sent (the document waits for a PAC whose circuit is open, or for its window): asked again when that changes.
  if (retryAt) return new RetryLaterError(result.message, new Date(retryAt));
  return new Error('code' in result ? `${result.code}: ${result.message}` : result.message);
}

/** The queued attempt: send the stored sealed XML again (the PAC recognizes a document it already stamped). */
export function stampJobHandler(deps: {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  stamperFor(environment: Environment): Stamper | undefined;
  logger: Logger;
}): JobHandler {
  const target = (job: { payload: Record<string, unknown>; tenantId: string | null; environment: Environment | null }): Target => ({
    id: job.payload.cfdi_id as string,
    tenantId: job.tenantId!,
    environment: job.environment!,
  });
  const sealFromDraft = async (cfdi: Target, draft: SealDraft | undefined, folio: { serie: string | null; folio: number | null }): Promise<string> => {
    if (!draft || folio.serie === null || folio.folio === null) throw new PermanentJobError('the invoice has no sealed document and nothing to seal it from');
    const xml = await sealDraft(draft, { serie: folio.serie, folio: folio.folio }, await activeSigner(deps, cfdi.tenantId, cfdi.environment), deps.now());
    deps.logger.info('sealed from queue', { cfdi_id: cfdi.id, tenant_id: cfdi.tenantId });
    return storeSealedXml(deps.db, cfdi.id, xml);
  };
  return {
    async run(job) {
      const cfdi = target(job);
      const doc = (
        await deps.db
          .select({ xml: cfdiDocuments.xml, status: cfdis.status, serie: cfdis.serie, folio: cfdis.folio })
          .from(cfdis)
          .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
          .where(eq(cfdis.id, cfdi.id))
      )[0];
      if (doc?.status !== 'en_cola') return; // stamped meanwhile (late synchronous answer) or gone
      const stamper = deps.stamperFor(cfdi.environment);
      if (!stamper) throw new PermanentJobError(`no PAC configured for ${cfdi.environment}`);
      // Its folio was taken without a seal, and the process that was to seal it did not: seal it from the draft.
      const xml = doc.xml.length > 0 ? doc.xml.toString('utf8') : await sealFromDraft(cfdi, job.payload.draft as SealDraft | undefined, doc);
      const started = performance.now();
      const { result, pac, attempts, retryAt } = await stamper.stamp(cfdi, xml, { tenantId: cfdi.tenantId });
      deps.logger.debug('pac stamp', {
        cfdi_id: cfdi.id,
        environment: cfdi.environment,
        attempt: job.attempts,
        pac,
        ok: result.ok,
        duration_ms: Math.round(performance.now() - started),
      });
      if (result.ok) {
        return async (tx) => {
          // A stamp names the PAC that made it.
          if (await recordRoutedStamp(tx, cfdi, { result, pac: pac!, attempts }, xml, deps.now()))
            return () => deps.logger.info('stamped from queue', { cfdi_id: cfdi.id, tenant_id: cfdi.tenantId, uuid: result.tfd.uuid, attempts: job.attempts });
        };
      }
      throw unstampedError(result, retryAt);
    },
    giveUp(job, error) {
      const reason = error instanceof Error ? error.message : String(error);
      return async (tx) => {
        const cfdi = target(job);
        if (await recordFailure(tx, cfdi, reason, deps.now()))
          return () => deps.logger.warn('stamping failed', { cfdi_id: cfdi.id, tenant_id: cfdi.tenantId, reason, attempts: job.attempts });
      };
    },
  };
}
