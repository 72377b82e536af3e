import { and, eq } from 'drizzle-orm';
import { buildCancelacionXml, signEnveloped } from '../../cfdi/cancellation.ts';
import { wallClock } from '../../cfdi/time.ts';
import { child, parseXml } from '../../cfdi/xml.ts';
import { withTransaction, type DbOrTx } from '../../db/index.ts';
import { type CfdiStatus, type Environment, retencionDocuments, retenciones } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { conflict, invalidInput, ServiceError, type ErrorDetail } from '../../lib/service-error.ts';
import type { RetencionQuery, RetencionStatusResult } from '../../pac/types.ts';
import type { CfdiDeps } from '../cfdis/issue.ts';
import { activeSigner } from '../csds/service.ts';
import { cancelled } from './lifecycle.ts';
import { getRetencionRow } from './reads.ts';
import { toRetencion, type RetencionCancelBody, type RetencionRow } from './schemas.ts';

/** A retención's cancellation (SAT's cancelacionretencion) and its SAT status: POST /retenciones/{id}/cancel, GET /retenciones/{id}/sat-status. */
export type RetencionCancelDeps = Pick<CfdiDeps, 'db' | 'now' | 'masterKey' | 'pacFor'>;

const SAT_ZONE = 'America/Mexico_City';

/** What the PAC that stamped a retención cannot do for it: a permanent absence, not an outage (422, not 503). */
const unsupported = (what: string, code: string, detail: ErrorDetail) => new ServiceError('rejected', what, [detail], undefined, code);

/** A stamped retención of the caller's tenant and environment, with its UUID; one not stamped has nothing at SAT. */
async function stampedRetencion(deps: Pick<RetencionCancelDeps, 'db'>, actor: Actor, ref: string): Promise<RetencionRow & { uuid: string }> {
  const row = await getRetencionRow(deps.db, actor, ref);
  if (!row.uuid)
    throw new ServiceError('not_found', `Retención ${row.id} is ${row.status}: it has no UUID, so SAT does not know it`, [
      { field: 'id', issue: `${row.id} is not stamped` },
    ]);
  return { ...row, uuid: row.uuid };
}

/** Why a retención that is not vigente is not cancelled (409), as for a CFDI. */
const NOT_CANCELLABLE: Partial<Record<CfdiStatus, (id: string) => string>> = {
  en_cola: (id) => `Retención ${id} is queued for stamping: SAT does not know it yet, so it cannot be cancelled there`,
  fallido: (id) => `Retención ${id} was never stamped (fallido): there is nothing to cancel at SAT`,
  cancelado: (id) => `Retención ${id} is already cancelled`,
};

/** Motivo 01's replacement: a vigente retención of the same tenant and environment whose CfdiRetenRelacionados names this one with 04. */
async function checkSubstitute(db: DbOrTx, actor: Actor, row: RetencionRow & { uuid: string }, folio: string): Promise<void> {
  const field = 'folio_sustitucion';
  const fail = (issue: string): never => {
    throw invalidInput('Invalid folio_sustitucion', [{ field, issue }]);
  };
  const [sub] = await db
    .select({ id: retenciones.id, status: retenciones.status, xml: retencionDocuments.xml })
    .from(retenciones)
    .innerJoin(retencionDocuments, eq(retencionDocuments.retencionId, retenciones.id))
    .where(and(eq(retenciones.uuid, folio.toUpperCase()), eq(retenciones.tenantId, actor.tenantId), eq(retenciones.environment, actor.environment)));
  if (!sub) return fail(`no retención with UUID ${folio} in this tenant and environment: issue the replacement first`);
  if (sub.id === row.id) fail('must be the UUID of the replacement, not of the retención being cancelled');
  if (sub.status !== 'vigente') fail(`the replacement ${folio} is ${sub.status}; it must be vigente`);
  const related = child(parseXml(sub.xml.toString('utf8')), 'retenciones:CfdiRetenRelacionados')?.attrs;
  if (related?.TipoRelacion !== '04' || related.UUID?.toUpperCase() !== row.uuid)
    fail(
      `the replacement ${folio} does not relate to ${row.uuid} with TipoRelacion 04 (cfdi_reten_relacionados: { tipo_relacion: "04", uuid: "${row.uuid}" })`,
    );
}

/** The motivo's rules, as for a CFDI: 01 names its replacement, the others do not. */
function motivoProblem(body: RetencionCancelBody): ErrorDetail | undefined {
  if (body.motivo === '01' && !body.folio_sustitucion)
    return {
      field: 'folio_sustitucion',
      issue:
        'is required with motivo 01: the UUID of the vigente retención that replaces this one (issued with cfdi_reten_relacionados tipo_relacion 04 to it)',
    };
  if (body.motivo !== '01' && body.folio_sustitucion)
    return { field: 'folio_sustitucion', issue: `must be absent with motivo ${body.motivo}: only motivo 01 names a replacement` };
  return undefined;
}

/**
 * POST /retenciones/{id}/cancel. Everything is checked first; the request, signed with the tenant's CSD, goes to SAT
 * (the sandbox cancels at once); then one transaction moves the retención to cancelado with `retencion.cancelada`
 * and binds the Idempotency-Key. SAT answers a repeated request with the earlier acuse, so a retry after a crash
 * between the two finishes the move.
 */
export async function cancelRetencion(
  deps: RetencionCancelDeps,
  actor: Actor,
  ref: string,
  body: RetencionCancelBody,
  opts: { bindIdempotency?: IdempotencyClaim['bind'] } = {},
) {
  const found = await getRetencionRow(deps.db, actor, ref);
  if (found.status !== 'vigente' || !found.uuid)
    throw conflict(NOT_CANCELLABLE[found.status]?.(found.id) ?? `Retención ${found.id} is ${found.status}`, [{ field: 'status', issue: `is ${found.status}` }]);
  const row = { ...found, uuid: found.uuid };
  const problem = motivoProblem(body);
  if (problem) throw invalidInput('Invalid input', [problem]);
  const folioSustitucion = body.folio_sustitucion?.toUpperCase();
  if (folioSustitucion) await checkSubstitute(deps.db, actor, row, folioSustitucion);

  // Through the PAC that stamped it, as a CFDI's cancellation.
  const pac = deps.pacFor(actor.environment, row.pac);
  if (!pac?.cancelRetencion)
    throw unsupported('The PAC that stamped this retención does not cancel Retenciones through this service', 'retenciones_cancel_unsupported', {
      field: 'pac',
      issue: `${row.pac ?? 'its PAC'} is not asked to cancel Retenciones (cancelacionretencion) by this service: cancel it with that PAC directly`,
    });
  const now = deps.now();
  const rfcEmisor = row.summary.emisor.rfc;
  const signer = await activeSigner(deps, actor.tenantId, actor.environment);
  if (!signer || signer.rfc !== rfcEmisor || !signer.validAt(now)) {
    throw conflict("A cancellation is signed with the issuer's CSD and there is no usable one", [
      {
        field: 'csd',
        issue: signer
          ? `the active CSD ${signer.noCertificado} is not valid now or not of ${rfcEmisor}`
          : `no active CSD in the ${actor.environment} environment: upload one with POST /csds`,
      },
    ]);
  }
  const folio = { uuid: row.uuid, motivo: body.motivo, folioSustitucion };
  const signedXml = signEnveloped(buildCancelacionXml({ rfcEmisor, fecha: wallClock(now, SAT_ZONE), folios: [folio] }, 'retencion'), signer.signingKey);
  const result = await pac
    .cancelRetencion({ ...folio, rfcEmisor, tenantId: actor.tenantId, signedXml })
    .catch((err: unknown) => ({ ok: false as const, retryable: true as const, message: err instanceof Error ? err.message : String(err) }));
  if (!result.ok) {
    if (result.retryable)
      throw new ServiceError('unavailable', 'SAT did not take the cancellation request; the retención stays vigente. Try again later', [
        { field: 'pac', issue: result.message },
      ]);
    throw new ServiceError('rejected', 'Cancellation rejected by SAT; the retención stays vigente', [
      { field: 'pac', issue: `${result.code}: ${result.message}` },
    ]);
  }
  // serializable: the replacement read again (still vigente, still relating to this one) decides the move
  const moved = await withTransaction(deps.db, { isolation: 'serializable', name: 'retenciones.cancel' }, async (tx) => {
    if (folioSustitucion) await checkSubstitute(tx, actor, row, folioSustitucion);
    const after = await cancelled(tx, row, { motivo: body.motivo, folio_sustitucion: folioSustitucion ?? null }, deps.now());
    if (!after) throw conflict(`Retención ${row.id} changed meanwhile: it is no longer vigente`, [{ field: 'status', issue: 'is not vigente' }]);
    await opts.bindIdempotency?.(tx, row.id);
    return after;
  });
  return toRetencion(moved);
}

/** The answer to a retry whose first request cancelled the retención and then died before answering: it, as it is now. */
export async function resumeCancelRetencion(deps: Pick<RetencionCancelDeps, 'db'>, actor: Actor, id: string) {
  return toRetencion(await getRetencionRow(deps.db, actor, id));
}

/** A retención's SAT status: SAT's verification page in live mode, the sandbox's simulated SAT in test mode (app.ts). */
export type ConsultRetencion = (environment: Environment, tenantId: string, query: RetencionQuery) => Promise<RetencionStatusResult>;

/**
 * GET /retenciones/{id}/sat-status. SAT publishes a retención's status on its verification page only, with no service
 * (docs/decisions.md, "A retención's SAT status in live mode"): a page that does not answer, or that we cannot read,
 * is a 503 to retry, as for a CFDI's status.
 */
export async function getRetencionSatStatus(deps: Pick<RetencionCancelDeps, 'db' | 'now'> & { consultRetencion: ConsultRetencion }, actor: Actor, ref: string) {
  const row = await stampedRetencion(deps, actor, ref);
  const result = await deps.consultRetencion(actor.environment, actor.tenantId, {
    uuid: row.uuid,
    rfcEmisor: row.summary.emisor.rfc,
    rfcReceptor: row.receptorRfc,
  });
  if (!result.ok)
    throw new ServiceError(
      'unavailable',
      "SAT's verification page for Retenciones did not answer in a way we can read; try again later",
      [{ field: 'sat', issue: result.message }],
      30,
    );
  return {
    uuid: row.uuid,
    consulted_at: deps.now().toISOString(),
    estado: result.status.estado,
    estatus_cancelacion: result.status.estatusCancelacion,
    fecha_cancelacion: result.status.fechaCancelacion,
    fuente: actor.environment === 'test' ? ('sandbox' as const) : ('sat' as const),
  };
}
