import type { CsdSigner } from '../../cfdi/csd.ts';
import { sealRetencion } from '../../cfdi/retenciones/build.ts';
import { COMPLEMENTS, memberOf } from '../../cfdi/retenciones/complements/index.ts';
import type { RetencionModel } from '../../cfdi/retenciones/model.ts';
import { prepareRetencion } from '../../cfdi/retenciones/prepare.ts';
import { withTransaction, type withGroupCommit } from '../../db/index.ts';
import { enqueue } from '../../jobs/queue.ts';
import type { Actor } from '../../lib/backend.ts';
import type { AuditInTransaction } from '../../lib/audit.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { newId } from '../../lib/ids.ts';
import { invalidInput, ServiceError, type ErrorDetail } from '../../lib/service-error.ts';
import { emisorOf, NO_PAC, requireStamper, signerFor, STAMP_DEADLINE_MS, type CfdiDeps } from '../cfdis/issue.ts';
import type { Stamper } from '../cfdis/stamp-routing.ts';
import { rejected } from '../cfdis/wire.ts';
import { allocateFolio, peekFolio } from '../series/service.ts';
import { bornQueued, bornStamped, type NewRetencion, type RetencionStamp } from './lifecycle.ts';
import { RETENCION_STAMP_JOB, stampOf } from './stamping.ts';
import { getRetencionRow } from './reads.ts';
import { toRetencion, type RetencionRequest, type RetencionRow } from './schemas.ts';

/**
 * Issuing a CFDI de Retenciones e información de pagos 2.0: POST /retenciones/validate, POST /retenciones, its
 * resumption. `stamperFor` is who stamps retenciones: the sandbox in process (test), the live PACs through the failover
 * router over retencion_stamp_attempts (live).
 */
export type RetencionDeps = Pick<CfdiDeps, 'db' | 'now' | 'masterKey' | 'identity' | 'stamperFor' | 'wakeJobs' | 'pacFor' | 'pdfPool' | 'mailer'>;

/** FolioInt: the series and its folio joined (t_FolioInt: letters and digits, at most 20). */
const FOLIO_INT = /^[A-Za-z0-9]{1,20}$/;
const folioIntOf = (taken: { serie: string; folio: number }) => `${taken.serie}${taken.folio}`;
const folioIntProblem = (taken: { serie: string; folio: number }): ErrorDetail | undefined =>
  FOLIO_INT.test(folioIntOf(taken))
    ? undefined
    : {
        field: 'serie',
        issue: `FolioInt is the series and its folio joined (${folioIntOf(taken)}): it must be 1 to 20 letters and digits, so series ${JSON.stringify(taken.serie)} cannot number retenciones; send another serie`,
      };

/** What the checks found: every problem, and when there is none, the model to seal and the CSD to seal it with. */
interface Checked {
  errors: ErrorDetail[];
  model?: RetencionModel;
  signer?: CsdSigner;
}

/** Every check of the request at once: the series, the engine's rules (with SAT's codes), the CSD. Nothing is written. */
export async function check(deps: RetencionDeps, actor: Actor, req: RetencionRequest): Promise<Checked> {
  const errors: ErrorDetail[] = [];
  const emisor = await emisorOf(deps, actor);
  let folioInt: string | undefined;
  try {
    const peek = await peekFolio(deps.db, { tenantId: actor.tenantId, environment: actor.environment }, req.serie);
    const problem = folioIntProblem(peek);
    if (problem) errors.push(problem);
    else folioInt = folioIntOf(peek);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    errors.push(...err.details);
  }
  const { serie: _, ...input } = req;
  const prepared = await prepareRetencion(input, { emisor, now: deps.now(), folioInt });
  errors.push(...prepared.errors);
  const { signer, problem } = await signerFor(deps, actor, emisor.rfc);
  if (problem) errors.push(problem);
  return { errors, model: prepared.model, signer };
}

/** POST /retenciones/validate: the same checks as POST /retenciones, no folio taken, nothing sealed or stamped. */
export async function validateRetencion(deps: RetencionDeps, actor: Actor, req: RetencionRequest) {
  const { errors } = await check(deps, actor, req);
  // First, as POST /retenciones answers it first (503): without a PAC nothing is stamped, whatever else is fixed.
  if (!deps.stamperFor(actor.environment)) errors.unshift(NO_PAC);
  return { valid: errors.length === 0, errors };
}

/** What the row keeps of the model and its stamp (none while it waits for a live PAC's); its status is the lifecycle's. */
function rowOf(
  actor: Actor,
  id: string,
  m: RetencionModel,
  taken: { serie: string; folio: number },
  stamp: RetencionStamp | undefined,
  at: string,
): NewRetencion {
  const r = m.receptor;
  const t = m.totales;
  return {
    id,
    tenantId: actor.tenantId,
    environment: actor.environment,
    uuid: stamp?.uuid ?? null,
    serie: taken.serie,
    folio: taken.folio,
    folioInt: m.folioInt!,
    cveRetenc: m.cveRetenc,
    receptorRfc: r.nacionalidad === 'Nacional' ? r.rfc : null,
    receptorNombre: r.nombre,
    receptorNumRegIdTrib: r.nacionalidad === 'Extranjero' ? (r.numRegIdTrib ?? null) : null,
    mesIni: Number(m.periodo.mesIni),
    mesFin: Number(m.periodo.mesFin),
    ejercicio: Number(m.periodo.ejercicio),
    montoTotOperacion: t.montoTotOperacion.toString(),
    montoTotRet: t.montoTotRet.toString(),
    fechaExp: m.fechaExp,
    fechaTimbrado: stamp?.fechaTimbrado ?? null,
    pac: stamp?.pac ?? null,
    failureReason: null,
    batchKey: null,
    batchHash: null,
    summary: {
      emisor: { rfc: m.emisor.rfc, nombre: m.emisor.nombre, regimen_fiscal: m.emisor.regimenFiscal },
      receptor:
        r.nacionalidad === 'Nacional'
          ? { nacionalidad: 'Nacional', rfc: r.rfc, nombre: r.nombre, ...(r.curp && { curp: r.curp }), domicilio_fiscal: r.domicilioFiscal }
          : { nacionalidad: 'Extranjero', nombre: r.nombre, ...(r.numRegIdTrib && { num_reg_id_trib: r.numRegIdTrib }) },
      ...(m.descRetenc !== undefined && { desc_retenc: m.descRetenc }),
      totales: { monto_tot_grav: t.montoTotGrav.toString(), monto_tot_exent: t.montoTotExent.toString() },
      impuestos_retenidos: t.impRetenidos.map((i) => ({
        ...(i.impuestoRet !== undefined && { impuesto_ret: i.impuestoRet }),
        ...(i.baseRet !== undefined && { base_ret: i.baseRet.toString() }),
        monto_ret: i.montoRet.toString(),
        tipo_pago_ret: i.tipoPagoRet,
      })),
      complementos: complementsOf(m),
      ...stamp?.tfd,
    },
    createdAt: at,
    updatedAt: at,
  };
}

/** The complements the document carries, by element name: the structured ones in registry order, then those sent as XML. */
const complementsOf = (m: RetencionModel): string[] => [
  ...COMPLEMENTS.filter((c) => memberOf(m, c.model) !== undefined).map((c) => c.element),
  ...m.rawComplements.map((node) => node.name),
];

export interface IssueRetencionOptions {
  bindIdempotency?: IdempotencyClaim['bind'];
  auditIn?: AuditInTransaction;
  /** POST /retenciones/batch: the item's idempotency_key and the hash of the item, kept on the row. */
  batchKey?: { key: string; hash: string };
  /** How the issuing transaction runs: withTransaction, or withGroupCommit for a batch's items. */
  transaction?: typeof withGroupCommit;
}

/**
 * POST /retenciones: check everything (400 with every problem), then one transaction takes the folio and seals with
 * the tenant's CSD. The sandbox stamps in that transaction (in process: no I/O) and it records the stamped document
 * (201); live, it records the sealed one en_cola and queues its stamp job (202). Either way with its Idempotency-Key
 * binding and its audit entry. A refusal of the sandbox's stamp rolls all back: the folio is not consumed.
 */
export async function issueRetencion(deps: RetencionDeps, actor: Actor, req: RetencionRequest, opts: IssueRetencionOptions = {}) {
  const stamper = requireStamper(deps, actor);
  const checked = await check(deps, actor, req);
  if (checked.errors.length > 0 || !checked.model || !checked.signer) throw invalidInput('The Retención fails validation', checked.errors);
  return toRetencion(await commitRetencion(deps, actor, stamper, { model: checked.model, signer: checked.signer, serie: req.serie }, opts));
}

/**
 * The writing phase of issuing a checked request: folio, seal, then the sandbox's stamp, row, document and event, or
 * (live) the sealed row and its stamp job, in one transaction.
 */
export async function commitRetencion(
  deps: RetencionDeps,
  actor: Actor,
  stamper: Stamper,
  checked: { model: RetencionModel; signer: CsdSigner; serie: string | undefined },
  opts: IssueRetencionOptions,
): Promise<RetencionRow> {
  const { signer } = checked;
  const now = deps.now();
  const at = now.toISOString();
  const id = newId('ret', now.getTime());
  const scope = { tenantId: actor.tenantId, environment: actor.environment };
  const run: typeof withGroupCommit = opts.transaction ?? withTransaction;
  const batch = opts.batchKey && { batchKey: opts.batchKey.key, batchHash: opts.batchKey.hash };
  // read committed: the folio is an UPDATE … RETURNING on the series row (its lock orders the writers); the rest are
  // inserts the unique indexes guard
  const { row, jobs } = await run(deps.db, { isolation: 'read committed', name: 'retenciones.issue' }, async (tx) => {
    const taken = await allocateFolio(tx, scope, checked.serie);
    const problem = folioIntProblem(taken);
    if (problem) throw invalidInput('The Retención fails validation', [problem]);
    const model = { ...checked.model, folioInt: folioIntOf(taken) };
    const sealed = await sealRetencion(model, signer);
    if (!stamper.inProcess) {
      const row = await bornQueued(tx, { ...rowOf(actor, id, model, taken, undefined, at), ...batch }, sealed.xml);
      await enqueue(tx, now, {
        type: RETENCION_STAMP_JOB,
        tenantId: actor.tenantId,
        environment: actor.environment,
        payload: { retencion_id: id },
        // As a queued CFDI's: past this it is given up as fallido rather than stamped days after it was asked for.
        deadline: new Date(now.getTime() + STAMP_DEADLINE_MS),
      });
      await opts.bindIdempotency?.(tx, id);
      await opts.auditIn?.(tx, id, 202);
      return { row, jobs: 1 };
    }
    const { result, pac } = await stamper.stamp({ id, tenantId: actor.tenantId }, sealed.xml, { tenantId: actor.tenantId });
    if (!result.ok)
      throw new ServiceError('rejected', 'Rejected by the stamping provider', [
        { field: 'pac', issue: 'code' in result ? `${result.code}: ${result.message}` : result.message },
      ]);
    const stamp = stampOf(result.xml, result.tfd, pac ?? stamper.name);
    const { row, deliveries } = await bornStamped(tx, { ...rowOf(actor, id, model, taken, stamp, at), ...batch }, result.xml, now);
    await opts.bindIdempotency?.(tx, id);
    await opts.auditIn?.(tx, id, 201);
    return { row, jobs: deliveries };
  });
  if (jobs > 0) deps.wakeJobs(); // its stamp job, or the webhook deliveries of retencion.timbrada, run now, not at the next tick
  return row;
}

/**
 * The answer to a retry whose first request created retención `id` and then died before answering: what that request
 * would answer now, as for a CFDI: the retención (202 while queued, else 201), or 422 if the PAC refused it.
 */
export async function resumeRetencion(deps: RetencionDeps, actor: Actor, id: string) {
  const row = await getRetencionRow(deps.db, actor, id);
  if (row.status === 'fallido') throw rejected(row);
  return toRetencion(row);
}
