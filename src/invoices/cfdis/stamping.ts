import { and, eq } from 'drizzle-orm';
import { tfdCadena, type Tfd } from '../../cfdi/tfd.ts';
import { zonedToUtc } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import { statement } from '../../db/prepared.ts';
import { cfdiDocuments, cfdis, type CfdiStatus, type Environment } from '../../db/schema/index.ts';
import { PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Pac } from '../../pac/types.ts';
import { recordEvent } from '../events.ts';
import { followPagoStatus } from './payments.ts';
import type { Tx, DbOrTx } from '../../db/index.ts';

export const STAMP_JOB = 'cfdi.stamp';

interface Target {
  id: string;
  tenantId: string;
  environment: Environment;
}

/**
 * Records a stamp once: only an invoice still `en_cola` moves to `vigente`, so a late synchronous answer and a
 * job retry cannot both write one (and the sandbox/PAC give the same UUID for the same document anyway).
 */
export async function recordStamp(tx: Tx, cfdi: Target, stamped: { xml: string; tfd: Tfd }, now: Date): Promise<boolean> {
  const holder = await statement(tx, 'select id from cfdis where uuid = ?').get(stamped.tfd.uuid) as { id: string } | undefined;
  if (holder && holder.id !== cfdi.id) {
    // The PAC answered with a UUID another CFDI here already has: the very same document was stamped before (two
    // tenants with one RFC sent identical XML). A UUID belongs to one CFDI, so this one fails instead of a 500.
    await recordFailure(tx, cfdi, `307: this exact document was already stamped (UUID ${stamped.tfd.uuid}); issue it again`, now);
    return false;
  }
  const fechaTimbrado = zonedToUtc(stamped.tfd.fechaTimbrado, 'America/Mexico_City').toISOString();
  const tfd = { sello_sat: stamped.tfd.selloSat, certificado_sat: stamped.tfd.noCertificadoSat, cadena_original_sat: tfdCadena(stamped.tfd) };
  const update = async (from: string, patch: object = tfd) =>
    (await statement(tx, `update cfdis set status = 'vigente', uuid = ?, fecha_timbrado = ?, summary = json_patch(summary, ?), updated_at = ? where id = ? and ${from}`)
      .run(stamped.tfd.uuid, fechaTimbrado, JSON.stringify(patch), now.toISOString(), cfdi.id)).changes === 1;
  if (!await update("status = 'en_cola'")) {
    // Withdrawn while an attempt was already in flight, and that attempt stamped it: SAT has it, so it is vigente.
    if (!await update("status = 'fallido' and json_extract(summary, '$.withdrawn_at') is not null", { ...tfd, error: null })) return false;
    await recordStatusChange(tx, cfdi, 'fallido', 'vigente', 'stamped by an attempt already in flight when it was withdrawn: cancel it if it is not wanted', now);
    await followPagoStatus(tx, cfdi.id, 'vigente', now);
  }
  await statement(tx, 'update cfdi_documents set xml = ? where cfdi_id = ?').run(Buffer.from(stamped.xml, 'utf8'), cfdi.id);
  await recordEvent(tx, { tenantId: cfdi.tenantId, environment: cfdi.environment, type: 'cfdi.timbrado', data: { cfdi_id: cfdi.id, uuid: stamped.tfd.uuid }, now });
  return true;
}

/** One move of a CFDI's status after stamping, with its reason (cfdi_status_changes). */
async function recordStatusChange(tx: DbOrTx, cfdi: { id: string; tenantId: string }, from: string, to: string, reason: string, at: Date): Promise<void> {
  await statement(tx, 'insert into cfdi_status_changes (cfdi_id, tenant_id, from_status, to_status, reason, at) values (?, ?, ?, ?, ?, ?)').run(cfdi.id, cfdi.tenantId, from, to, reason, at.toISOString());
}

/** Moves a CFDI's status (only from `from`) and records the move with its reason. False when it was not in `from`. */
export async function moveStatus(tx: Tx, cfdi: { id: string; tenantId: string }, from: CfdiStatus, to: CfdiStatus, reason: string, at: Date): Promise<boolean> {
  const moved = await tx
    .update(cfdis)
    .set({ status: to, updatedAt: at.toISOString() })
    .where(and(eq(cfdis.id, cfdi.id), eq(cfdis.status, from)))
    .returning({ id: cfdis.id });
  if (moved.length !== 1) return false;
  await recordStatusChange(tx, cfdi, from, to, reason, at);
  await followPagoStatus(tx, cfdi.id, to, at);
  return true;
}

/** The invoice could not be stamped for good: `fallido`, event cfdi.fallido. Its folio stays used. */
export async function recordFailure(tx: Tx, cfdi: Target, reason: string, now: Date): Promise<boolean> {
  const row = (await tx.select({ summary: cfdis.summary }).from(cfdis).where(and(eq(cfdis.id, cfdi.id), eq(cfdis.status, 'en_cola'))))[0];
  if (!row) return false;
  await tx.update(cfdis).set({ status: 'fallido', summary: { ...row.summary, error: reason }, updatedAt: now.toISOString() }).where(eq(cfdis.id, cfdi.id));
  await followPagoStatus(tx, cfdi.id, 'fallido', now);
  await recordEvent(tx, { tenantId: cfdi.tenantId, environment: cfdi.environment, type: 'cfdi.fallido', data: { cfdi_id: cfdi.id }, now });
  return true;
}

/** The queued attempt: send the stored sealed XML again (the PAC recognizes a document it already stamped). */
export function stampJobHandler(deps: { db: Db; now: () => Date; pacFor(environment: Environment): Pac | undefined; logger: Logger }): JobHandler {
  const target = (job: { payload: Record<string, unknown>; tenantId: string | null; environment: Environment | null }): Target => ({
    id: job.payload.cfdi_id as string,
    tenantId: job.tenantId!,
    environment: job.environment!,
  });
  return {
    async run(job) {
      const cfdi = target(job);
      const doc = (await deps.db
        .select({ xml: cfdiDocuments.xml, status: cfdis.status })
        .from(cfdis)
        .innerJoin(cfdiDocuments, eq(cfdiDocuments.cfdiId, cfdis.id))
        .where(eq(cfdis.id, cfdi.id)))[0];
      if (!doc || doc.status !== 'en_cola') return; // stamped meanwhile (late synchronous answer) or gone
      const pac = deps.pacFor(cfdi.environment);
      if (!pac) throw new PermanentJobError(`no PAC configured for ${cfdi.environment}`);
      const started = performance.now();
      const result = await pac.stamp(doc.xml.toString('utf8'), { tenantId: cfdi.tenantId });
      deps.logger.debug('pac stamp', { cfdi_id: cfdi.id, environment: cfdi.environment, attempt: job.attempts, ok: result.ok, duration_ms: Math.round(performance.now() - started) });
      if (result.ok) {
        return async (tx) => {
          if (await recordStamp(tx, cfdi, result, deps.now())) deps.logger.info('stamped from queue', { cfdi_id: cfdi.id, tenant_id: cfdi.tenantId, uuid: result.tfd.uuid, attempts: job.attempts });
        };
      }
      if (result.retryable) throw new Error(result.message);
      throw new PermanentJobError(`${result.code}: ${result.message}`);
    },
    giveUp(job, error) {
      const reason = error instanceof Error ? error.message : String(error);
      return async (tx) => {
        const cfdi = target(job);
        if (await recordFailure(tx, cfdi, reason, deps.now())) deps.logger.warn('stamping failed', { cfdi_id: cfdi.id, tenant_id: cfdi.tenantId, reason, attempts: job.attempts });
      };
    },
  };
}
