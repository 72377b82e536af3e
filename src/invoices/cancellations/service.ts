import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import {
  buildCancelacionXml,
  cancellationDeadline,
  cancellationFactsOf,
  MOTIVO_NAMES,
  receiverAcceptance,
  signEnveloped,
  type Motivo,
  type SatStatus,
} from '../../cfdi/cancellation.ts';
import { wallClock } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import { cfdiCancellations, cfdiDocuments, cfdiRelations, cfdis, cfdiStatusChanges, type CfdiStatus, type Environment } from '../../db/schema/index.ts';
import { closeQueuedJob, enqueue, PermanentJobError } from '../../jobs/queue.ts';
import type { JobHandler } from '../../jobs/worker.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { conflict, invalidInput, ServiceError } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import type { CancelRequest, CancelResult, CancelScenario } from '../../pac/types.ts';
import { standingPaymentsOf } from '../cfdis/payments.ts';
import type { CfdiDeps } from '../cfdis/issue.ts';
import { findCfdi, type CfdiRef } from '../cfdis/reads.ts';
import { transition } from '../cfdis/lifecycle.ts';
import { activeSigner } from '../csds/service.ts';
import { queryOf } from './sat-status.ts';
import { withTransaction, type Tx, type DbOrTx } from '../../db/index.ts';

export const CANCEL_JOB = 'cfdi.cancellation';
const SAT_ZONE = 'America/Mexico_City';

export type CancellationDeps = Omit<CfdiDeps, 'stampBudgetMs'> & {
  /** CANCELLATION_POLL_SECONDS in ms: how often a pending cancellation is asked about. */
  cancellationPollMs: number;
};

type Cancellation = typeof cfdiCancellations.$inferSelect;

/** Vigente (or pending) CFDIs of the tenant that relate to this UUID, other than substitutes (TipoRelacion 04). */
export async function dependentsOf(
  db: DbOrTx,
  scope: { tenantId: string; environment: Environment },
  uuid: string,
): Promise<{ uuid: string; tipoRelacion: string }[]> {
  const rows = await db
    .select({ uuid: cfdis.uuid, tipoRelacion: cfdiRelations.tipoRelacion })
    .from(cfdiRelations)
    .innerJoin(cfdis, eq(cfdis.id, cfdiRelations.cfdiId))
    .where(
      and(
        eq(cfdiRelations.tenantId, scope.tenantId),
        eq(cfdiRelations.environment, scope.environment),
        eq(cfdiRelations.relatedUuid, uuid),
        ne(cfdiRelations.tipoRelacion, '04'),
        inArray(cfdis.status, ['vigente', 'cancelacion_pendiente']),
      ),
    )
    .limit(10);
  // A vigente or pending CFDI has been stamped, so it has its UUID.
  return rows.map((r) => ({ uuid: r.uuid!, tipoRelacion: r.tipoRelacion }));
}

/** Motivo 01's replacement: a vigente CFDI of the same tenant and environment that relates to this one with 04. */
async function checkSubstitute(db: DbOrTx, actor: Actor, cfdi: CfdiRef, folio: string): Promise<void> {
  const field = 'folio_sustitucion';
  const sub = (
    await db
      .select({ id: cfdis.id, status: cfdis.status })
      .from(cfdis)
      .where(and(eq(cfdis.uuid, folio.toUpperCase()), eq(cfdis.tenantId, actor.tenantId), eq(cfdis.environment, actor.environment)))
  )[0];
  if (!sub)
    throw invalidInput('Invalid folio_sustitucion', [
      { field, issue: `no CFDI with UUID ${folio} in this tenant and environment: issue the replacement first` },
    ]);
  if (sub.id === cfdi.id)
    throw invalidInput('Invalid folio_sustitucion', [{ field, issue: 'must be the UUID of the replacement, not of the CFDI being cancelled' }]);
  if (sub.status !== 'vigente')
    throw invalidInput('Invalid folio_sustitucion', [{ field, issue: `the replacement ${folio} is ${sub.status}; it must be vigente` }]);
  const [related] = await db
    .select({ cfdiId: cfdiRelations.cfdiId })
    .from(cfdiRelations)
    .where(and(eq(cfdiRelations.cfdiId, sub.id), eq(cfdiRelations.tipoRelacion, '04'), eq(cfdiRelations.relatedUuid, cfdi.uuid!)));
  if (!related) {
    throw invalidInput('Invalid folio_sustitucion', [
      {
        field,
        issue: `the replacement ${folio} does not relate to ${cfdi.uuid} with TipoRelacion 04 (cfdi_relacionados: [{ tipo_relacion: "04", uuids: ["${cfdi.uuid}"] }])`,
      },
    ]);
  }
}

/** No cancelable: vigente CFDIs relate to it (other than substitutes), or standing Pagos pay it. */
async function refuseIfRelatedTo(db: DbOrTx, actor: Actor, cfdi: CfdiRef, uuid: string): Promise<void> {
  const dependents = await dependentsOf(db, actor, uuid);
  const payments = await standingPaymentsOf(db, actor, uuid);
  if (dependents.length + payments.length > 0) {
    throw conflict(`CFDI ${cfdi.id} is not cancellable (No cancelable): vigente CFDIs relate to it; cancel them first`, [
      ...dependents.map((d) => ({ field: 'cfdi_relacionados', issue: `${d.uuid} relates to it with TipoRelacion ${d.tipoRelacion}` })),
      ...payments.map((p) => ({ field: 'pagos', issue: `the Pago ${p} pays it` })),
    ]);
  }
}

const NOT_CANCELLABLE: Partial<Record<CfdiStatus, (id: string) => string>> = {
  en_cola: (id) =>
    `CFDI ${id} is queued for stamping: SAT does not know it yet, so it cannot be cancelled there. Withdraw it instead with POST /api/v1/cfdis/${id}/withdraw`,
  fallido: (id) => `CFDI ${id} was never stamped (fallido): there is nothing to cancel at SAT`,
  cancelado: (id) => `CFDI ${id} is already cancelled`,
  cancelacion_pendiente: (id) => `CFDI ${id} already has a cancellation in progress: follow it with GET /api/v1/cfdis/${id}/cancellation`,
};

export interface CancelBody {
  motivo: Motivo;
  folio_sustitucion?: string;
}

/**
 * POST /cfdis/:id/cancel. Everything is checked first; then one transaction moves the CFDI to
 * `cancelacion_pendiente`, stores the signed request and queues the follow-up job (which re-sends it after a crash
 * and polls while the receiver decides); then the request goes to the PAC and its answer is applied.
 */
export async function cancelCfdi(
  deps: CancellationDeps,
  actor: Actor,
  ref: string,
  body: CancelBody,
  opts: { scenario?: CancelScenario; bindIdempotency?: IdempotencyClaim['bind'] } = {},
) {
  const cfdi = await findCfdi(deps.db, actor, ref);
  const refuse = NOT_CANCELLABLE[cfdi.status];
  if (refuse) throw conflict(refuse(cfdi.id), [{ field: 'status', issue: `is ${cfdi.status}` }]);
  if (body.motivo === '01' && !body.folio_sustitucion) {
    throw invalidInput('Invalid input', [
      {
        field: 'folio_sustitucion',
        issue: 'is required with motivo 01: the UUID of the vigente CFDI that replaces this one (issued with cfdi_relacionados tipo_relacion 04 to it)',
      },
    ]);
  }
  if (body.motivo !== '01' && body.folio_sustitucion) {
    throw invalidInput('Invalid input', [
      { field: 'folio_sustitucion', issue: `must be absent with motivo ${body.motivo}: only motivo 01 names a replacement` },
    ]);
  }
  if (body.folio_sustitucion) await checkSubstitute(deps.db, actor, cfdi, body.folio_sustitucion);

  const facts = cancellationFactsOf(cfdi.xml.toString('utf8'));
  const now = deps.now();
  const nowLocal = wallClock(now, SAT_ZONE);
  const deadline = cancellationDeadline(facts.fecha, facts.rfcEmisor);
  if (nowLocal.slice(0, 10) > deadline) {
    throw conflict(`CFDI ${cfdi.id} can no longer be cancelled: the deadline was ${deadline} (the annual return of the year it was issued)`, [
      { field: 'fecha', issue: `issued ${facts.fecha}; cancellable until ${deadline}` },
    ]);
  }
  await refuseIfRelatedTo(deps.db, actor, cfdi, facts.uuid);
  const signer = await activeSigner(deps, actor.tenantId, actor.environment);
  if (!signer || signer.rfc !== facts.rfcEmisor || !signer.validAt(now)) {
    throw conflict("A cancellation is signed with the issuer's CSD and there is no usable one", [
      {
        field: 'csd',
        issue: signer
          ? `the active CSD ${signer.noCertificado} is not valid now or not of ${facts.rfcEmisor}`
          : `no active CSD in the ${actor.environment} environment: upload one with POST /csds`,
      },
    ]);
  }
  const pac = deps.pacFor(actor.environment, cfdi.pac);
  if (!pac)
    throw new ServiceError('unavailable', 'No PAC is configured for the live environment', [
      {
        field: 'environment',
        issue: cfdi.pac ? `${cfdi.pac} stamped this CFDI and cancels it: its operator lists it in PACS` : 'live cancellation needs a PAC',
      },
    ]);

  const acceptance = receiverAcceptance(facts, nowLocal);
  const folio = { uuid: facts.uuid, motivo: body.motivo, folioSustitucion: body.folio_sustitucion?.toUpperCase() };
  const signedXml = signEnveloped(buildCancelacionXml({ rfcEmisor: facts.rfcEmisor, fecha: nowLocal, folios: [folio] }), signer.signingKey);
  const id = newId('can', now.getTime());
  // serializable: the substitute, the related CFDIs and payments read decide the move
  const jobId = await withTransaction(deps.db, { isolation: 'serializable', name: 'cancellations.request' }, async (tx) => {
    const reason = `cancellation requested: motivo ${body.motivo} (${MOTIVO_NAMES[body.motivo]})${folio.folioSustitucion ? `, replaced by ${folio.folioSustitucion}` : ''}`;
    // Checked again where no other request can issue a Pago or a related CFDI, or cancel the replacement, before the move.
    if (body.folio_sustitucion) await checkSubstitute(tx, actor, cfdi, body.folio_sustitucion);
    await refuseIfRelatedTo(tx, actor, cfdi, facts.uuid);
    if ((await transition(tx, cfdi, 'vigente', 'cancelacion_pendiente', { reason, at: now, uuid: cfdi.uuid })) === undefined)
      throw conflict(`CFDI ${cfdi.id} changed meanwhile: it is no longer vigente`, [{ field: 'status', issue: 'is not vigente' }]);
    await tx.insert(cfdiCancellations).values({
      id,
      cfdiId: cfdi.id,
      tenantId: actor.tenantId,
      environment: actor.environment,
      uuid: facts.uuid,
      motivo: body.motivo,
      folioSustitucion: folio.folioSustitucion ?? null,
      status: 'en_proceso',
      requiresAcceptance: acceptance.required,
      sandboxScenario: opts.scenario ?? null,
      requestXml: Buffer.from(signedXml, 'utf8'),
      requestedAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
    await opts.bindIdempotency?.(tx, id);
    return enqueue(tx, now, {
      type: CANCEL_JOB,
      tenantId: actor.tenantId,
      environment: actor.environment,
      payload: { cancellation_id: id },
      runAt: new Date(now.getTime() + deps.cancellationPollMs),
    });
  });

  const request: CancelRequest = { ...queryOf(facts), ...folio, signedXml, requiresAcceptance: acceptance.required };
  const result: CancelResult = await pac.cancel(request, { scenario: opts.scenario }).catch((err: unknown) => ({
    ok: false as const,
    retryable: true as const,
    message: err instanceof Error ? err.message : String(err),
  }));
  // serializable: applyCancelResult decides on the cancellation's state it reads
  const outcome = await withTransaction(deps.db, { isolation: 'serializable', name: 'cancellations.result' }, async (tx) => {
    const after = await applyCancelResult(tx, (await loadCancellation(tx, id))!, result, deps.now());
    if (after !== 'en_proceso') await closeQueuedJob(tx, jobId, deps.now());
    return after;
  });
  deps.wakeJobs();
  if (!result.ok) {
    if (result.retryable)
      throw new ServiceError(
        'unavailable',
        'The PAC did not take the cancellation request; the CFDI stays vigente. Try again later',
        [{ field: 'pac', issue: result.message }],
        30,
      );
    throw new ServiceError('rejected', 'Cancellation rejected by the PAC/SAT; the CFDI stays vigente', [
      { field: 'pac', issue: `${result.code}: ${result.message}` },
    ]);
  }
  return { pending: outcome === 'en_proceso', body: await getCancellation(deps, actor, cfdi.id) };
}

/**
 * The answer to a retry whose first request recorded cancellation `id` and then died before answering: 202 while SAT
 * has it in process, 200 once it is resolved. A request that had failed (the CFDI stayed vigente) is tried again:
 * undefined.
 */
export async function resumeCancel(deps: Pick<CancellationDeps, 'db'>, actor: Actor, id: string) {
  const c = await loadCancellation(deps.db, id);
  if (!c || c.tenantId !== actor.tenantId || c.environment !== actor.environment || c.status === 'fallido') return undefined;
  return { pending: c.status === 'en_proceso', body: await getCancellation(deps, actor, c.cfdiId) };
}

async function loadCancellation(db: DbOrTx, id: string): Promise<Cancellation | undefined> {
  return (await db.select().from(cfdiCancellations).where(eq(cfdiCancellations.id, id)))[0];
}

/** The PAC's answer to the request: a failure puts the CFDI back to vigente; an acuse is kept and its status applied. */
async function applyCancelResult(tx: Tx, c: Cancellation, result: CancelResult, now: Date): Promise<Cancellation['status']> {
  if (c.status !== 'en_proceso') return c.status;
  if (!result.ok) {
    await finish(tx, c, 'fallido', `the request failed: ${result.retryable ? result.message : `${result.code}: ${result.message}`}`, now);
    return 'fallido';
  }
  // The first acuse is kept: a re-sent request may be answered again.
  await tx
    .update(cfdiCancellations)
    .set({ acuseXml: sql`coalesce(${cfdiCancellations.acuseXml}, ${Buffer.from(result.acuseXml, 'utf8')})`, updatedAt: now.toISOString() })
    .where(eq(cfdiCancellations.id, c.id));
  return result.status ? await applySatStatus(tx, c, result.status, now) : 'en_proceso';
}

/** Where SAT says the request stands: cancelled, rejected (back to vigente) or still in process. */
async function applySatStatus(tx: Tx, c: Cancellation, s: SatStatus, now: Date): Promise<Cancellation['status']> {
  await tx
    .update(cfdiCancellations)
    .set({ estado: s.Estado, estatusCancelacion: s.EstatusCancelacion || null, updatedAt: now.toISOString() })
    .where(and(eq(cfdiCancellations.id, c.id), eq(cfdiCancellations.status, 'en_proceso')));
  if (s.Estado === 'Cancelado') {
    await finish(tx, { ...c, estado: s.Estado, estatusCancelacion: s.EstatusCancelacion }, 'cancelado', `SAT: ${s.EstatusCancelacion || 'Cancelado'}`, now);
    return 'cancelado';
  }
  if (s.EstatusCancelacion === 'Solicitud rechazada') {
    await finish(tx, c, 'rechazado', 'SAT: Solicitud rechazada (the receiver rejected the cancellation)', now);
    return 'rechazado';
  }
  return 'en_proceso';
}

/** Ends a cancellation and moves its CFDI (the lifecycle's reactions: `cfdi.cancelado` goes out in the same transaction). */
async function finish(tx: Tx, c: Cancellation, status: Exclude<Cancellation['status'], 'en_proceso'>, reason: string, now: Date): Promise<void> {
  const stamp = now.toISOString();
  const ended = await tx
    .update(cfdiCancellations)
    .set({ status, reason: status === 'cancelado' ? null : reason, resolvedAt: stamp, updatedAt: stamp })
    .where(and(eq(cfdiCancellations.id, c.id), eq(cfdiCancellations.status, 'en_proceso')))
    .returning({ id: cfdiCancellations.id });
  if (ended.length !== 1) return;
  const cfdi = { id: c.cfdiId, tenantId: c.tenantId, environment: c.environment };
  if (status === 'cancelado') {
    // Its reactions: cfdi.cancelado with these details, the receipts it held given back, a Pago's instalments freed.
    const detail = { uuid: c.uuid, motivo: c.motivo, estado: c.estado ?? 'Cancelado', estatus_cancelacion: c.estatusCancelacion ?? null };
    await transition(tx, cfdi, 'cancelacion_pendiente', 'cancelado', { reason, at: now, uuid: c.uuid, detail });
  } else {
    await transition(tx, cfdi, 'cancelacion_pendiente', 'vigente', { reason, at: now, uuid: c.uuid });
  }
}

/**
 * The follow-up of a cancellation en_proceso: re-sends the request when no acuse came back (a crash or a lost
 * answer; SAT answers a repeat with the same request), otherwise asks SAT where it stands. While it is still in
 * process the next poll is queued with the answer.
 */
export function cancellationJobHandler(deps: Pick<CancellationDeps, 'db' | 'now' | 'pacFor' | 'cancellationPollMs'>): JobHandler {
  const next = (tx: Tx, c: Cancellation) =>
    enqueue(tx, deps.now(), {
      type: CANCEL_JOB,
      tenantId: c.tenantId,
      environment: c.environment,
      payload: { cancellation_id: c.id },
      runAt: new Date(deps.now().getTime() + deps.cancellationPollMs),
    });
  const target = (payload: Record<string, unknown>) => loadCancellation(deps.db, String(payload.cancellation_id));
  return {
    async run(job) {
      const c = await target(job.payload);
      if (c?.status !== 'en_proceso') return;
      const doc = (
        await deps.db
          .select({ xml: cfdiDocuments.xml, pac: cfdis.pac })
          .from(cfdiDocuments)
          .innerJoin(cfdis, eq(cfdis.id, cfdiDocuments.cfdiId))
          .where(eq(cfdiDocuments.cfdiId, c.cfdiId))
      )[0];
      if (!doc) return;
      // The PAC that stamped it; one no longer configured leaves the request waiting (and the log says why).
      const pac = deps.pacFor(c.environment, doc.pac);
      if (!pac)
        throw doc.pac
          ? new Error(`${doc.pac}, which stamped this CFDI, is not configured (PACS): its cancellation waits for it`)
          : new PermanentJobError(`no PAC configured for ${c.environment}`);
      const facts = cancellationFactsOf(doc.xml.toString('utf8'));
      if (!c.acuseXml) {
        const result = await pac.cancel(
          {
            ...queryOf(facts),
            motivo: c.motivo as Motivo,
            folioSustitucion: c.folioSustitucion ?? undefined,
            signedXml: c.requestXml.toString('utf8'),
            requiresAcceptance: c.requiresAcceptance,
          },
          { scenario: (c.sandboxScenario as CancelScenario | null) ?? undefined },
        );
        if (!result.ok && result.retryable) throw new Error(result.message);
        return async (tx) => {
          if ((await applyCancelResult(tx, (await loadCancellation(tx, c.id))!, result, deps.now())) === 'en_proceso') await next(tx, c);
        };
      }
      const status = await pac.status(queryOf(facts));
      if (!status.ok) throw new Error(status.message);
      return async (tx) => {
        if ((await applySatStatus(tx, (await loadCancellation(tx, c.id))!, status.status, deps.now())) === 'en_proceso') await next(tx, c);
      };
    },
    giveUp(job, error) {
      return async (tx) => {
        const c = await loadCancellation(tx, String(job.payload.cancellation_id));
        if (c) await finish(tx, c, 'fallido', `gave up: ${error instanceof Error ? error.message : String(error)}`, deps.now());
      };
    },
  };
}

/** The CFDI's most recent cancellation request, or 404 saying there is none. */
async function latestCancellation(db: Db, cfdiId: string): Promise<Cancellation> {
  const c = (await db.select().from(cfdiCancellations).where(eq(cfdiCancellations.cfdiId, cfdiId)).orderBy(desc(cfdiCancellations.id)))[0];
  if (!c)
    throw new ServiceError('not_found', `CFDI ${cfdiId} has no cancellation request`, [{ field: 'id', issue: `no cancellation was requested for ${cfdiId}` }]);
  return c;
}

/** GET /cfdis/:id/cancellation: the latest request for the CFDI and the CFDI's status moves. */
export async function getCancellation(deps: Pick<CancellationDeps, 'db'>, actor: Actor, ref: string) {
  const cfdi = await findCfdi(deps.db, actor, ref);
  const c = await latestCancellation(deps.db, cfdi.id);
  const moves = await deps.db.select().from(cfdiStatusChanges).where(eq(cfdiStatusChanges.cfdiId, cfdi.id)).orderBy(cfdiStatusChanges.id);
  const base = `/api/v1/cfdis/${cfdi.id}/cancellation`;
  return {
    id: c.id,
    cfdi_id: cfdi.id,
    uuid: c.uuid,
    status: c.status,
    cfdi_status: cfdi.status,
    motivo: c.motivo as Motivo,
    folio_sustitucion: c.folioSustitucion,
    requiere_aceptacion: c.requiresAcceptance,
    estado_sat: c.estado,
    estatus_cancelacion: c.estatusCancelacion,
    motivo_rechazo: c.reason,
    requested_at: c.requestedAt,
    resolved_at: c.resolvedAt,
    request_xml_url: `${base}/request.xml`,
    acuse_xml_url: c.acuseXml ? `${base}/acuse.xml` : null,
    historial: moves.map((m) => ({ from: m.fromStatus, to: m.toStatus, reason: m.reason, at: m.at })),
  };
}

/** The signed request or SAT's acuse of the latest cancellation, byte for byte. */
export async function getCancellationDocument(
  deps: Pick<CancellationDeps, 'db'>,
  actor: Actor,
  ref: string,
  which: 'request' | 'acuse',
): Promise<{ uuid: string; xml: Buffer }> {
  const cfdi = await findCfdi(deps.db, actor, ref);
  const c = await latestCancellation(deps.db, cfdi.id);
  const xml = which === 'request' ? c.requestXml : c.acuseXml;
  if (!xml)
    throw new ServiceError('not_found', `No acuse yet for the cancellation of ${cfdi.id}: the PAC has not acknowledged the request`, [
      { field: 'acuse', issue: 'not received yet' },
    ]);
  return { uuid: c.uuid, xml };
}

/** SAT's acuse of the cancellation that cancelled the CFDI, sent with it by email. */
export async function acuseOf(db: Db, cfdiId: string): Promise<Buffer | undefined> {
  const c = (
    await db
      .select({ acuseXml: cfdiCancellations.acuseXml })
      .from(cfdiCancellations)
      .where(and(eq(cfdiCancellations.cfdiId, cfdiId), eq(cfdiCancellations.status, 'cancelado')))
      .orderBy(desc(cfdiCancellations.id))
      .limit(1)
  )[0];
  return c?.acuseXml ?? undefined;
}
