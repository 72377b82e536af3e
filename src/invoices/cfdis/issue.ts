import { and, eq, sql } from 'drizzle-orm';
import type { CsdSigner } from '../../cfdi/csd.ts';
import type { ReceptorInput } from '../../cfdi/input.ts';
import type { ComprobanteModel } from '../../cfdi/model.ts';
import { prepareInvoice } from '../../cfdi/prepare.ts';
import { RELATES_TO, TIPO_NAME } from '../../cfdi/rules/relations.ts';
import { timeZoneOf, zonedToUtc } from '../../cfdi/time.ts';
import { prepared } from '../../db/prepared.ts';
import type { Db, DbOrTx } from '../../db/client.ts';
import { cfdiDocuments, cfdiRelations, cfdis, type Environment } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import type { AuditInTransaction } from '../../lib/audit.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { conflict, invalidInput, notFound, ServiceError, type ErrorDetail } from '../../lib/service-error.ts';
import { newId } from '../../lib/ids.ts';
import type { Pac, SandboxScenario, StampResult } from '../../pac/types.ts';
import { StampInFlight, type Stamper } from './stamp-routing.ts';
import { closeQueuedJob, enqueue, rescheduleJob } from '../../jobs/queue.ts';
import { recordFailure, recordRoutedStamp, recordStamp, STAMP_JOB, stampToInsert, storeSealedXml } from './stamping.ts';
import { sealDraftOf } from './seal-draft.ts';
import { sealComprobante } from '../../cfdi/build.ts';
import { born } from './lifecycle.ts';
import { cfdiQueries } from './queries.ts';
import { getClientReceptor } from '../clients/service.ts';
import { activeSigner } from '../csds/service.ts';
import { recordEvent } from '../events.ts';
import { allocateFolio, peekFolio } from '../series/service.ts';
import { recordPayments, resolvePaidDocuments } from './payments.ts';
import type { PdfPool } from './pdf-pool.ts';
import type { CfdiRequest, CfdiRow } from './schemas.ts';
import { withTransaction, writesConcurrently, type Tx } from '../../db/index.ts';
import { issueStrategy, type SealAhead, type SealedDocument } from './issue-strategy.ts';
import { recordEmail } from '../emails/outbox.ts';
import { NO_SMTP, type Mailer } from '../emails/smtp.ts';
import { checkSending } from '../emails/budget.ts';
import { uniqueViolation } from '../../db/engine.ts';
import { getRow, scoped } from './reads.ts';
import { queuedAnswer, rejected, stampedAnswer, summaryOf } from './wire.ts';
import { situaciones69b } from '../sat-lists/situaciones.ts';

/** Issuing a CFDI: POST /cfdis/validate, POST /cfdis (and the receipts' invoices, which issue through it), its resumption. */
export interface CfdiDeps {
  db: Db;
  now: () => Date;
  masterKey: Buffer;
  identity: IdentityDirectory;
  /** Who stamps an environment's documents (the live PACs through failover), or undefined when no live PAC is configured. */
  stamperFor(environment: Environment): Stamper | undefined;
  /**
   * The PAC that stamped a CFDI, by the name recorded on it: its cancellation, acuse and SAT status go there. Without
   * a name (stamped before PACs were recorded), the environment's first PAC.
   */
  pacFor(environment: Environment, stampedBy?: string | null): Pac | undefined;
  /** How long POST /cfdis waits for the provider before answering 202 (queued). */
  stampBudgetMs: number;
  /** Run due jobs now rather than at the next tick. */
  wakeJobs(): void;
  /** The SMTP server invoices are emailed through (SMTP_URL); none: email_to and POST /cfdis/{id}/email answer 400. */
  mailer?: Mailer;
  /** Where PDFs render (default: the process's one pool). */
  pdfPool?: PdfPool;
  /** BLOCK_69B_RECEIVERS: refuse to issue to a receptor the tenant's Lista 69-B has as definitivo (default off). */
  block69bReceivers?: boolean;
}

/**
 * BLOCK_69B_RECEIVERS: a receptor on the Lista 69-B the tenant's environment consults (sat-lists/service.ts) as
 * definitivo is refused, naming the field its RFC came from and the rule.
 */
async function listedReceptorProblems(deps: CfdiDeps, actor: Actor, req: CfdiRequest, receptorRfc: string | undefined): Promise<ErrorDetail[]> {
  if (!deps.block69bReceivers || !receptorRfc) return [];
  const situacion = (await situaciones69b(deps.db, { tenantId: actor.tenantId, environment: actor.environment }, [receptorRfc])).get(receptorRfc);
  if (situacion !== 'definitivo') return [];
  return [
    {
      field: req.receptor ? 'receptor.rfc' : 'receptor_id',
      issue: `${receptorRfc} is on SAT's Lista 69-B as definitivo (Lista 69-B, artículo 69-B CFF: it issued simulated operations); this service is configured not to invoice it (BLOCK_69B_RECEIVERS)`,
      rule: 'CFF 69-B',
    },
  ];
}

async function resolveReceptor(deps: CfdiDeps, actor: Actor, req: CfdiRequest): Promise<ReceptorInput> {
  if (req.receptor) return req.receptor;
  const client = await getClientReceptor(deps.db, { tenantId: actor.tenantId, environment: actor.environment }, req.receptor_id!);
  if (!client) throw invalidInput('Invalid input', [{ field: 'receptor_id', issue: `no client ${req.receptor_id} in this tenant and environment` }]);
  return client;
}

export async function emisorOf(deps: Pick<CfdiDeps, 'identity'>, actor: Pick<Actor, 'tenantId'>) {
  const t = await deps.identity.tenantById(actor.tenantId);
  if (!t) throw notFound('Tenant');
  return { rfc: t.rfc, nombre: t.nombre, regimenFiscal: t.regimenFiscal, codigoPostal: t.codigoPostal, domicilio: t.domicilioFiscal ?? undefined };
}

export const NO_PAC: ErrorDetail = {
  field: 'environment',
  issue:
    "live stamping needs a PAC, which this server has not: its operator sets PACS (the PACs in the order to try, e.g. finkok,sw) and each listed PAC's settings: SW_URL, SW_USER and SW_PASSWORD for SW (or the legacy PAC_URL, PAC_USER and PAC_PASSWORD), FINKOK_URL, FINKOK_USERNAME and FINKOK_PASSWORD for Finkok (Quadrum); a sk_test_ key stamps in the sandbox",
};

/** Who stamps the environment's documents, or 503 naming the settings that configure the live PACs. */
export function requireStamper(deps: Pick<CfdiDeps, 'stamperFor'>, actor: Actor): Stamper {
  const stamper = deps.stamperFor(actor.environment);
  if (!stamper) throw new ServiceError('unavailable', 'No stamping provider (PAC) is configured for the live environment', [NO_PAC]);
  return stamper;
}

/** The active CSD able to seal now, or the problem as an error detail. */
export async function signerFor(
  deps: Pick<CfdiDeps, 'db' | 'now' | 'masterKey'>,
  actor: Actor,
  emisorRfc: string,
): Promise<{ signer?: CsdSigner; problem?: ErrorDetail }> {
  const signer = await activeSigner(deps, actor.tenantId, actor.environment);
  if (!signer) {
    const which = actor.environment === 'live' ? " that can sign live invoices (SAT's test CSDs cannot)" : '';
    return { problem: { field: 'csd', issue: `no active CSD in the ${actor.environment} environment${which}: upload one with POST /csds` } };
  }
  if (!signer.validAt(deps.now()))
    return { problem: { field: 'csd', issue: `the active CSD ${signer.noCertificado} is outside its validity period (PAC 305): upload a current one` } };
  if (signer.rfc !== emisorRfc) return { problem: { field: 'csd', issue: `the active CSD belongs to ${signer.rfc}, not to ${emisorRfc} (PAC 303)` } };
  return { signer };
}

/**
 * Related UUIDs must be vigente CFDIs of this tenant and environment, of a type the TipoRelacion allows, and
 * (except a Traslado's goods) to the same receptor. SAT cannot check this; we can.
 */
async function relationProblems(db: DbOrTx, actor: Actor, req: CfdiRequest, receptorRfc: string | undefined): Promise<ErrorDetail[]> {
  const relatesTo = RELATES_TO[req.tipo];
  if (!relatesTo) return [];
  const what = TIPO_NAME[req.tipo]!;
  const problems: ErrorDetail[] = [];
  for (const [i, r] of (req.cfdi_relacionados ?? []).entries()) {
    const allowed = relatesTo[r.tipo_relacion];
    if (!allowed) {
      problems.push({
        field: `cfdi_relacionados[${i}].tipo_relacion`,
        issue: `${r.tipo_relacion} is not a relation ${what} uses (${Object.keys(relatesTo).join(', ')})`,
      });
      continue;
    }
    for (const [j, uuid] of r.uuids.entries()) {
      const field = `cfdi_relacionados[${i}].uuids[${j}]`;
      const [row] = await db
        .select({ tipo: cfdis.tipo, status: cfdis.status, receptorRfc: cfdis.receptorRfc })
        .from(cfdis)
        .where(and(eq(cfdis.uuid, uuid.toUpperCase()), scoped(actor)));
      if (!row) problems.push({ field, issue: `no CFDI ${uuid} in this tenant and environment: ${what} relates to your own CFDIs` });
      else if (row.status !== 'vigente') problems.push({ field, issue: `${uuid} is ${row.status}: ${what} relates to vigente CFDIs` });
      else if (!allowed.includes(row.tipo))
        problems.push({ field, issue: `${uuid} is of type ${row.tipo}; TipoRelacion ${r.tipo_relacion} relates ${what} to ${allowed.join(' or ')}` });
      else if (receptorRfc && row.receptorRfc !== receptorRfc && r.tipo_relacion !== '05')
        problems.push({ field, issue: `${uuid} was issued to ${row.receptorRfc}, not to this receptor ${receptorRfc}` });
    }
  }
  return problems;
}

/** Everything the database knows that a request's validity depends on, beyond the request itself. */
async function storedFacts(db: DbOrTx, actor: Actor, req: CfdiRequest, receptorRfc: string | undefined) {
  const scope = { tenantId: actor.tenantId, environment: actor.environment };
  const paid = req.tipo === 'P' && req.pagos ? await resolvePaidDocuments(db, scope, req.pagos, receptorRfc) : { docs: [], problems: [] };
  return { paidDocuments: paid.docs, problems: [...paid.problems, ...(await relationProblems(db, actor, req, receptorRfc))] };
}

/** Whether the request's validity rests on rows other requests change: balances, instalment numbers, related CFDIs. */
const readsStoredFacts = (req: CfdiRequest) => (req.tipo === 'P' && !!req.pagos) || (!!RELATES_TO[req.tipo] && !!req.cfdi_relacionados?.length);

/** Carta Porte's IdCCP: "CCC" in place of the first three characters of a random UUID (CartaPorte31.xsd). */
const newIdCcp = () => `CCC${crypto.randomUUID().slice(3).toUpperCase()}`;

/** POST /cfdis/validate: the stamping rules without a folio, a seal or the PAC. */
export async function validateCfdi(deps: CfdiDeps, actor: Actor, req: CfdiRequest) {
  // First, as POST /cfdis answers it first: without a PAC nothing is stamped, whatever else is fixed.
  const errors: ErrorDetail[] = deps.stamperFor(actor.environment) ? [] : [NO_PAC];
  let receptor: ReceptorInput | undefined;
  try {
    receptor = await resolveReceptor(deps, actor, req);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    errors.push(...err.details);
  }
  const emisor = await emisorOf(deps, actor);
  let folio: { serie: string; folio: number } | undefined;
  try {
    folio = await peekFolio(deps.db, { tenantId: actor.tenantId, environment: actor.environment }, req.serie);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    errors.push(...err.details);
  }
  const facts = await storedFacts(deps.db, actor, req, receptor?.rfc.toUpperCase());
  const prepared = receptor
    ? prepareInvoice(req, {
        emisor,
        receptor,
        now: deps.now(),
        serie: folio?.serie,
        folio: folio ? String(folio.folio) : undefined,
        paidDocuments: facts.paidDocuments,
        newIdCcp,
        emisorDomicilio: emisor.domicilio,
      })
    : undefined;
  errors.push(...facts.problems, ...(await listedReceptorProblems(deps, actor, req, receptor?.rfc.toUpperCase())), ...(prepared?.errors ?? []));
  const { problem } = await signerFor(deps, actor, emisor.rfc);
  if (problem) errors.push(problem);
  if (req.email_to && !deps.mailer) errors.push({ field: 'email_to', issue: `${NO_SMTP}: POST /cfdis with email_to would answer 400 and issue nothing` });
  return { valid: errors.length === 0, errors, warnings: prepared?.warnings ?? [] };
}

/** How long after its Fecha a queued invoice may still be stamped: well inside SAT's 72 hours. */
export const STAMP_DEADLINE_MS = 60 * 3600 * 1000;

// The writes of every issued invoice, prepared once per connection.
const insertCfdi = (tx: Tx, row: CfdiRow) =>
  prepared(tx, 'cfdis.insert', (d) =>
    d
      .insert(cfdis)
      .values({
        id: sql.placeholder('id'),
        tenantId: sql.placeholder('tenantId'),
        environment: sql.placeholder('environment'),
        uuid: sql.placeholder('uuid'),
        tipo: sql.placeholder('tipo'),
        status: sql.placeholder('status'),
        serie: sql.placeholder('serie'),
        folio: sql.placeholder('folio'),
        fecha: sql.placeholder('fecha'),
        fechaTimbrado: sql.placeholder('fechaTimbrado'),
        receptorRfc: sql.placeholder('receptorRfc'),
        receptorNombre: sql.placeholder('receptorNombre'),
        moneda: sql.placeholder('moneda'),
        subtotal: sql.placeholder('subtotal'),
        total: sql.placeholder('total'),
        summary: sql.placeholder('summary'),
        externalId: sql.placeholder('externalId'),
        clientId: sql.placeholder('clientId'),
        pac: sql.placeholder('pac'),
        metadata: sql.placeholder('metadata'),
        createdAt: sql.placeholder('createdAt'),
        updatedAt: sql.placeholder('updatedAt'),
      })
      .prepare(),
  ).execute(row);

const insertDocument = (tx: Tx, document: typeof cfdiDocuments.$inferInsert) =>
  prepared(tx, 'cfdis.insertDocument', (d) =>
    d
      .insert(cfdiDocuments)
      .values({ cfdiId: sql.placeholder('cfdiId'), tenantId: sql.placeholder('tenantId'), xml: sql.placeholder('xml') })
      .prepare(),
  ).execute(document);

/** A relation is recorded once however often the request names it. */
const insertRelation = (tx: Tx, relation: typeof cfdiRelations.$inferInsert) =>
  prepared(tx, 'cfdis.insertRelation', (d) =>
    d
      .insert(cfdiRelations)
      .values({
        cfdiId: sql.placeholder('cfdiId'),
        tenantId: sql.placeholder('tenantId'),
        environment: sql.placeholder('environment'),
        tipoRelacion: sql.placeholder('tipoRelacion'),
        relatedUuid: sql.placeholder('relatedUuid'),
      })
      .onConflictDoNothing()
      .prepare(),
  ).execute(relation);

/** The unique index on (tenant, environment, external_id) refused the insert: 409 naming the invoice that has it. */
async function externalIdTaken(deps: CfdiDeps, actor: Actor, externalId: string | undefined, err: unknown): Promise<ServiceError | undefined> {
  const violated = uniqueViolation(err);
  if (externalId === undefined || violated?.table !== 'cfdis' || !violated.columns.includes('external_id')) return undefined;
  const holder = (
    await deps.db
      .select({ id: cfdis.id })
      .from(cfdis)
      .where(and(scoped(actor), eq(cfdis.externalId, externalId)))
  )[0];
  return conflict(`external_id ${externalId} is already used by CFDI ${holder?.id ?? '(another invoice)'}`, [
    { field: 'external_id', issue: `already used by ${holder?.id ?? 'another invoice'} in this tenant and environment: GET /cfdis?external_id= finds it` },
  ]);
}

/** The unique index on standing instalments refused the insert (the check inside the transaction makes this a backstop). */
function instalmentTaken(err: unknown): ServiceError | undefined {
  if (uniqueViolation(err)?.table !== 'cfdi_payment_documents') return undefined;
  return conflict('Another Pago took this instalment of the paid invoice meanwhile', [
    { field: 'pagos', issue: 'an instalment number is already taken by a standing Pago: send the request again' },
  ]);
}

/** What issueCfdi's callers may add: a sandbox scenario, and writes that stand or fall with the invoice. */
interface IssueOptions {
  scenario?: SandboxScenario;
  bindIdempotency?: IdempotencyClaim['bind'];
  /** Writes of the caller's that stand or fall with the invoice (a receipt marked invoiced by it), in its transaction. */
  recordWith?: (tx: Tx, cfdiId: string) => Promise<void>;
  /** The request's audit row, written in the invoice's transaction when that transaction knows the answer is 201. */
  auditIn?: AuditInTransaction;
}

/**
 * POST /cfdis: validate everything first (nothing is stored and no folio is used when it fails), then in one
 * transaction take the folio, seal and record the invoice; stamp outside any transaction (unless the stamper stamps
 * in process: then inside it, see IssueStrategy); record the stamp, or leave the invoice queued; answer.
 */
export async function issueCfdi(deps: CfdiDeps, actor: Actor, req: CfdiRequest, opts: IssueOptions = {}) {
  const valid = await validateIssue(deps, actor, req);
  const draft = draftOf(actor, valid);
  if (writesConcurrently(deps.db) && !readsStoredFacts(req) && !opts.recordWith) return issueSealingAfterFolio(deps, actor, req, opts, valid, draft);
  const strategy = issueStrategy(deps.db, valid.stamper, valid.signer, draft.target, opts.scenario);
  // Read committed when the invoice's validity rests on no other request's rows: the series row's lock (allocateFolio's
  // UPDATE … RETURNING) orders the issuers and each gets the folio after the one committed before it; unique indexes refuse
  // a second external_id, idempotency key or instalment. Serializable when it decides on rows others change (the
  // balances of paid invoices, related CFDIs, the receipts recordWith marks after reading them).
  const isolation = readsStoredFacts(req) || opts.recordWith ? 'serializable' : 'read committed';
  let stored: Reserved;
  try {
    stored = await strategy.transaction(
      async (tx, seal) => {
        const folio = await allocateFolio(tx, valid.scope, req.serie);
        const model = await modelFor(tx, actor, req, valid, folio);
        return record(tx, deps, req, opts, valid, draft, folio, model, await seal(model));
      },
      sealAhead(req, valid),
      isolation,
    );
  } catch (err) {
    throw await refusalOf(deps, actor, req, err);
  }
  const issued: Issued = { ...draft, row: stored.row, deliveries: 0 };
  if ('stamped' in stored) return answerStampedInTransaction(deps, actor, valid, issued, stored.stamped);
  const result = await stampWithinBudget(deps, valid, issued, { ...stored, sealed: stored.sealed! }, opts.scenario);
  return answer(deps, actor, valid, issued, stored.jobId, result);
}

/**
 * POST /cfdis where transactions write side by side (PostgreSQL), for an invoice whose validity rests on no other
 * request's rows: the folio's transaction writes the invoice unsealed with its job and commits, so the series row is
 * locked for a few statements instead of two signatures and every write of the invoice; then seal, stamp and record
 * as a queued invoice is. A process that dies in between leaves the job, which seals it from its draft. Folios stay
 * consecutive: the folio and its invoice commit together (docs/decisions.md, "The folio's transaction without the seal").
 */
async function issueSealingAfterFolio(deps: CfdiDeps, actor: Actor, req: CfdiRequest, opts: IssueOptions, valid: Valid, draft: Draft) {
  let reserved: Queued & { model: ComprobanteModel };
  try {
    // read committed: the series row's lock (takeFolioFor's UPDATE … RETURNING) orders the issuers; nothing read decides
    // a write. The folio is taken last: the lock is held from that statement to the commit.
    reserved = await withTransaction(deps.db, { isolation: 'read committed', name: 'cfdis.reserve' }, async (tx) => {
      const queued = (await record(tx, deps, req, opts, valid, draft, undefined, valid.model, undefined)) as Queued;
      return { ...queued, model: { ...valid.model, serie: queued.row.serie!, folio: String(queued.row.folio) } };
    });
  } catch (err) {
    throw await refusalOf(deps, actor, req, err);
  }
  const issued: Issued = { ...draft, row: reserved.row, deliveries: 0 };
  const { target } = issued;
  let sealed: { xml: string };
  try {
    sealed = await sealComprobante(reserved.model, valid.signer);
  } catch {
    // The job seals it from its draft: queued, as when the provider gives no answer in time.
    return answer(deps, actor, valid, issued, reserved.jobId, undefined);
  }
  if (!(valid.stamper.inProcess && opts.scenario === undefined)) {
    // Stored before any PAC sees it, and what is stored is what is sent: a job after a crash sends these very bytes.
    const stored = { xml: await storeSealedXml(deps.db, target.id, sealed.xml) };
    const result = await stampWithinBudget(deps, valid, issued, { sealed: stored, jobId: reserved.jobId }, opts.scenario);
    return answer(deps, actor, valid, issued, reserved.jobId, result);
  }
  // In process (the sandbox): stamped at once, recorded with the job closed and the request's audit entry.
  const { result } = await valid.stamper.stamp(target, sealed.xml, { tenantId: target.tenantId });
  if (!result.ok) return answer(deps, actor, valid, issued, reserved.jobId, result);
  // read committed, as the issuing transaction that stamps in process elsewhere: the move from en_cola is a conditional
  // UPDATE that decides once, and the UUIDs' unique index backs the holder check (serializable made concurrent stamps
  // of one tenant abort each other on their reads)
  const recorded = await withTransaction(deps.db, { isolation: 'read committed', name: 'cfdis.recordStamp' }, async (tx) => {
    const closed = (t: Tx) => [closeQueuedJob(t, reserved.jobId, deps.now()), ...(opts.auditIn ? [opts.auditIn(t, target.id, 201)] : [])];
    // Issued by this request on a path that marks no receipts: its stamp has none to announce.
    return recordStamp(tx, target, result, deps.now(), valid.stamper.name, { alongside: closed, tookNoReceipts: true });
  });
  // Not recorded: its job stamped it first, or the UUID was another invoice's (then it is fallido): answer as it stands.
  return recorded ? answerStampedInTransaction(deps, actor, valid, issued, recorded) : answer(deps, actor, valid, issued, reserved.jobId, result);
}

/**
 * allocateFolio for an invoice recorded in this transaction without its folio: taken and written onto it last, so the
 * series row, which every issuer of the series waits for, stays locked from that statement to the commit only. The
 * same folios and errors (an unknown series; the default created on first use).
 */
async function takeFolioFor(tx: Tx, scope: Valid['scope'], serie: string | undefined, id: string): Promise<{ serie: string; folio: number }> {
  const taken = await cfdiQueries(tx).takeFolio(tx, scope, serie, id);
  if (taken) return taken;
  const allocated = await allocateFolio(tx, scope, serie);
  await cfdiQueries(tx).writeFolio(tx, id, allocated);
  return allocated;
}

/** validate: every check that can refuse the request, before anything is stored or a folio is used. */
async function validateIssue(deps: CfdiDeps, actor: Actor, req: CfdiRequest) {
  // The server's own gaps first (503), before what the caller can fix, such as a live CSD (400).
  const stamper = requireStamper(deps, actor);
  const sending = req.email_to ? await checkSending(deps, actor, 'email_to', req.email_to) : undefined; // 400 before anything is stored
  const receptor = await resolveReceptor(deps, actor, req);
  const emisor = await emisorOf(deps, actor);
  const scope = { tenantId: actor.tenantId, environment: actor.environment };
  const peek = await peekFolio(deps.db, scope, req.serie);
  const now = deps.now();
  // Checked here to answer 400 without taking the write lock; checked again inside the transaction that records it.
  const facts = await storedFacts(deps.db, actor, req, receptor.rfc.toUpperCase());
  const prepared = prepareInvoice(req, {
    emisor,
    receptor,
    now,
    serie: peek.serie,
    folio: String(peek.folio),
    paidDocuments: facts.paidDocuments,
    newIdCcp,
    emisorDomicilio: emisor.domicilio,
  });
  const { signer, problem } = await signerFor(deps, actor, emisor.rfc);
  const listed = await listedReceptorProblems(deps, actor, req, receptor.rfc.toUpperCase());
  const errors = [...facts.problems, ...listed, ...prepared.errors, ...(problem ? [problem] : [])];
  if (errors.length > 0 || !prepared.model || !signer) throw invalidInput('The CFDI fails validation', errors);
  return { stamper, sending, receptor, emisor, scope, now, prepared, model: prepared.model, signer };
}

type Valid = Awaited<ReturnType<typeof validateIssue>>;

/** The invoice before its transaction: the id its rows, its job and the stamper's records share. */
interface Draft {
  id: string;
  target: { id: string; tenantId: string; environment: Environment };
  createdAt: string;
}

/** The invoice once recorded: its row as the answer shows it, which the synchronous attempt's stamp updates. */
interface Issued extends Draft {
  row: CfdiRow;
  /** Jobs that stamp queued (webhook deliveries of cfdi.timbrado, emails asked for): woken before answering. */
  deliveries: number;
}

/** The invoice's identity, fixed before its transaction so that a re-run of it (PostgreSQL) writes the same one. */
function draftOf(actor: Actor, valid: Valid): Draft {
  const id = newId('cfdi', valid.now.getTime());
  return { id, target: { id, tenantId: actor.tenantId, environment: actor.environment }, createdAt: valid.now.toISOString() };
}

/** reserve, second half: the model for the folio taken, decided again on what this transaction sees when other requests can change its facts. */
async function modelFor(tx: Tx, actor: Actor, req: CfdiRequest, valid: Valid, { serie, folio }: { serie: string; folio: number }): Promise<ComprobanteModel> {
  if (!readsStoredFacts(req)) return { ...valid.model, serie, folio: String(folio) };
  // Another request may have paid the same invoice (balance, instalment number) or cancelled a related CFDI
  // since the check above: decide again on what this transaction sees, which nobody can change before it commits.
  const { emisor, receptor, now } = valid;
  const current = await storedFacts(tx, actor, req, receptor.rfc.toUpperCase());
  const again = prepareInvoice(req, {
    emisor,
    receptor,
    now,
    serie,
    folio: String(folio),
    paidDocuments: current.paidDocuments,
    newIdCcp,
    emisorDomicilio: emisor.domicilio,
  });
  const problems = [...current.problems, ...again.errors];
  if (problems.length > 0 || !again.model) throw invalidInput('The CFDI fails validation', problems);
  return { ...again.model, serie, folio: String(folio) };
}

/** seal, ahead: only a model whose validity rests on no other request's rows may be sealed before its folio is taken. */
function sealAhead(req: CfdiRequest, valid: Valid): SealAhead | undefined {
  return readsStoredFacts(req) ? undefined : { scope: valid.scope, serie: req.serie, model: valid.model };
}

/**
 * What the issuing transaction leaves: the invoice stamped already (in process), or queued for the attempt after it,
 * sealed (or to be sealed after the commit, SealDraft).
 */
type Reserved = { row: CfdiRow; stamped: Awaited<ReturnType<typeof recordStamp>> } | Queued;
type Queued = { row: CfdiRow; sealed?: { xml: string }; jobId: string; attempted?: StampResult };

/**
 * reserve, the writes: the invoice in its first status with its document, what stands or falls with it, and its
 * stamping job; one transaction with its folio, so a folio is never taken without its invoice. Without `document`
 * the invoice is written unsealed (an empty document) and its job carries what seals it (SealDraft); without `taken`,
 * its folio is taken after these writes (takeFolioFor).
 */
async function record(
  tx: Tx,
  deps: CfdiDeps,
  req: CfdiRequest,
  opts: IssueOptions,
  valid: Valid,
  draft: Draft,
  taken: { serie: string; folio: number } | undefined,
  model: ComprobanteModel,
  document: SealedDocument | undefined,
): Promise<Reserved> {
  const sealed = document?.sealed;
  const attempted = document?.attempted;
  const { id, target } = draft;
  const { tenantId, environment } = target;
  // Stamped already: the invoice is written once, vigente with its stamped XML, instead of en_cola and then updated.
  const stamped = attempted?.ok ? await stampToInsert(tx, attempted.tfd) : undefined;
  const row: CfdiRow = {
    id,
    tenantId,
    environment,
    uuid: stamped?.uuid ?? null,
    tipo: model.tipo,
    status: stamped ? 'vigente' : 'en_cola',
    serie: taken?.serie ?? null,
    folio: taken?.folio ?? null,
    fecha: model.fecha,
    fechaTimbrado: stamped?.fechaTimbrado ?? null,
    receptorRfc: model.receptor.rfc,
    receptorNombre: model.receptor.nombre,
    moneda: model.moneda,
    subtotal: model.subTotal.toString(),
    total: model.total.toString(),
    summary: stamped ? { ...summaryOf(model), ...stamped.tfd } : summaryOf(model),
    failureReason: null,
    withdrawnAt: null,
    pac: stamped ? valid.stamper.name : null,
    externalId: req.external_id ?? null,
    clientId: req.receptor_id ?? null,
    metadata: req.metadata ?? {},
    createdAt: draft.createdAt,
    updatedAt: draft.createdAt,
  };
  // Sent together, in this order (the invoice's row first): none decides on another's answer. On PostgreSQL they travel
  // in one round trip.
  const writes: Promise<unknown>[] = [
    insertCfdi(tx, row),
    insertDocument(tx, { cfdiId: id, tenantId, xml: Buffer.from(stamped && attempted?.ok ? attempted.xml : (sealed?.xml ?? ''), 'utf8') }),
  ];
  // Its job is queued by the stamp, here or later from the queue (queueWaitingEmails).
  if (valid.sending) writes.push(recordEmail(tx, target, valid.sending, valid.now, false));
  if (opts.bindIdempotency) writes.push(opts.bindIdempotency(tx, id));
  for (const r of model.relacionados) {
    for (const uuid of r.uuids)
      writes.push(insertRelation(tx, { cfdiId: id, tenantId, environment, tipoRelacion: r.tipoRelacion, relatedUuid: uuid.toUpperCase() }));
  }
  if (!taken) {
    // Unsealed, its folio taken last (takeFolioFor): its stamping job and the folio go with the writes above, so the
    // series row is locked from the folio's statement to the commit. Nothing here reads (no Pago, no recordWith).
    const [jobId, folio] = await Promise.all([
      enqueueStamp(tx, deps, req, valid, draft, model, undefined),
      takeFolioFor(tx, valid.scope, req.serie, id),
      ...writes,
    ]);
    await born(tx, target, row.status, { at: deps.now(), uuid: null });
    return { row: { ...row, ...folio }, jobId };
  }
  await Promise.all(writes);
  await opts.recordWith?.(tx, id);
  if (model.pagos) await recordPayments(tx, id, valid.scope, model.pagos);
  // Written in its first status: no move, but the reactions of arriving there (a stamp's announcements and emails).
  const deliveries = await born(tx, target, row.status, { at: deps.now(), uuid: row.uuid });
  if (stamped) {
    await opts.auditIn?.(tx, id, 201);
    return { row, stamped: { ...stamped, deliveries } };
  }
  // Stamped with a UUID another invoice holds: recordStamp records this one fallido.
  if (attempted?.ok) return { row, stamped: await recordStamp(tx, target, attempted, deps.now(), valid.stamper.name) };
  const jobId = await enqueueStamp(tx, deps, req, valid, draft, model, sealed);
  // A refusal of the in-process provider is answered after the commit as the provider's answer would be.
  return { row, sealed, jobId, attempted };
}

/** The invoice's stamping job: it sends the sealed document again, or seals it from its draft (SealDraft) first. */
function enqueueStamp(tx: Tx, deps: CfdiDeps, req: CfdiRequest, valid: Valid, draft: Draft, model: ComprobanteModel, sealed: { xml: string } | undefined) {
  const { id, target } = draft;
  return enqueue(tx, valid.now, {
    type: STAMP_JOB,
    tenantId: target.tenantId,
    environment: target.environment,
    payload: sealed ? { cfdi_id: id } : { cfdi_id: id, draft: sealDraftOf(req, valid) },
    // Due after the synchronous budget, so the scheduler does not race the attempt after this transaction; told to
    // nobody: this process attempts it now, and a tick finds it if that attempt never ends.
    runAt: new Date(valid.now.getTime() + deps.stampBudgetMs),
    notify: false,
    // Well inside SAT's 72 hours after Fecha: past this the invoice is given up as fallido.
    deadline: new Date(zonedToUtc(model.fecha, timeZoneOf(model.lugarExpedicion)).getTime() + STAMP_DEADLINE_MS),
  });
}

/** A unique index refused the transaction: the conflict it means, said for the caller; anything else as it is. */
async function refusalOf(deps: CfdiDeps, actor: Actor, req: CfdiRequest, err: unknown): Promise<unknown> {
  return (await externalIdTaken(deps, actor, req.external_id, err)) ?? instalmentTaken(err) ?? err;
}

/** answer, stamped in the transaction: 201 from what was written (or 422 if its UUID was another invoice's), no read-back. */
async function answerStampedInTransaction(deps: CfdiDeps, actor: Actor, valid: Valid, issued: Issued, recorded: Awaited<ReturnType<typeof recordStamp>>) {
  // Nothing recorded: the UUID belonged to another invoice, and this one was recorded fallido.
  if (!recorded) throw rejected(await getRow(deps.db, actor, issued.id));
  if (recorded.deliveries > 0) deps.wakeJobs(); // webhook deliveries of cfdi.timbrado go out now, not at the next tick
  const row = issued.row;
  return stampedAnswer(
    {
      ...row,
      status: 'vigente',
      uuid: recorded.uuid,
      fechaTimbrado: recorded.fechaTimbrado,
      pac: valid.stamper.name,
      summary: { ...row.summary, ...recorded.tfd },
    },
    valid.prepared.warnings,
  );
}

/**
 * stamp, after the commit: the synchronous attempt through the stamper, within the budget. A stamp is recorded
 * whenever it comes (once); one that comes past the budget, or a late failure, is left to the job. Undefined: no
 * answer within the budget.
 */
async function stampWithinBudget(
  deps: CfdiDeps,
  valid: Valid,
  issued: Issued,
  { sealed, jobId, attempted }: { sealed: { xml: string }; jobId: string; attempted?: StampResult },
  scenario: SandboxScenario | undefined,
): Promise<StampResult | undefined> {
  const { stamper } = valid;
  const { target } = issued;
  const attempt = (
    attempted
      ? Promise.resolve({ result: attempted, pac: stamper.name, attempts: [] })
      : stamper.stamp(target, sealed.xml, { tenantId: target.tenantId, scenario })
  ).then(async ({ result, pac, attempts }) => {
    if (result.ok) {
      // A stamp names the PAC that made it.
      const by = pac!;
      // serializable: recordStamp decides on the UUID's holder and the invoice's state it reads
      const recorded = await withTransaction(deps.db, { isolation: 'serializable', name: 'cfdis.recordStamp' }, async (tx) => {
        const done = await recordRoutedStamp(tx, target, { result, pac: by, attempts }, sealed.xml, deps.now());
        if (done) await closeQueuedJob(tx, jobId, deps.now());
        return done;
      });
      // The values recordStamp wrote, so the 201 needs no read-back.
      if (recorded) {
        issued.row = {
          ...issued.row,
          status: 'vigente',
          uuid: recorded.uuid,
          fechaTimbrado: recorded.fechaTimbrado,
          pac: by,
          summary: { ...issued.row.summary, ...recorded.tfd },
        };
        issued.deliveries = recorded.deliveries;
      }
    }
    return result;
  });
  // The queued job got to the document first: the invoice is its to stamp (202), as when no answer comes in time.
  const answered = attempt.catch((err) => {
    if (err instanceof StampInFlight) return undefined;
    throw err;
  });
  // Past the budget nobody awaits it: a late failure (the provider, or a full disk while recording) is the job's to retry.
  answered.catch(() => undefined);
  return Promise.race([answered, Bun.sleep(deps.stampBudgetMs).then(() => undefined)]);
}

/** answer, after the attempt: 422 for a refusal the PAC will repeat, 202 queued for the job to retry, else 201. */
async function answer(deps: CfdiDeps, actor: Actor, valid: Valid, issued: Issued, jobId: string, result: StampResult | undefined) {
  const { id, target } = issued;
  if (result && !result.ok && result.class === 'definitive') {
    // serializable: the move to fallido decides on the state and the receipts it reads
    await withTransaction(deps.db, { isolation: 'serializable', name: 'cfdis.recordFailure' }, async (tx) => {
      await recordFailure(tx, target, `${result.code}: ${result.message}`, deps.now());
      await closeQueuedJob(tx, jobId, deps.now());
    });
    throw new ServiceError('rejected', 'Rejected by the stamping provider', [{ field: 'pac', issue: `${result.code}: ${result.message}` }]);
  }
  if (!result?.ok) {
    // Unavailable or slow: the invoice stays queued and the scheduler retries it.
    // read committed: an event and a reschedule fenced on the job's status; nothing read decides them
    await withTransaction(deps.db, { isolation: 'read committed', name: 'cfdis.queued' }, async (tx) => {
      await recordEvent(tx, { tenantId: actor.tenantId, environment: actor.environment, type: 'cfdi.encolado', data: { cfdi_id: id }, now: deps.now() });
      // Unavailable (an answer, not a silence): nothing is in flight, so the job may try again right away.
      if (result) await rescheduleJob(tx, jobId, deps.now());
    });
    if (result) deps.wakeJobs();
    return queuedAnswer(issued.row);
  }
  if (issued.row.status !== 'vigente') issued.row = await getRow(deps.db, actor, id); // stamped by a job in between
  if (issued.row.status === 'fallido') throw rejected(issued.row);
  if (issued.deliveries > 0) deps.wakeJobs(); // webhook deliveries of cfdi.timbrado go out now, not at the next tick
  return stampedAnswer(issued.row, valid.prepared.warnings);
}

/**
 * The answer to a retry whose first request created invoice `id` and then died before answering: what that request
 * would answer now — 202 while queued, 422 if the provider rejected it, else 201 with the invoice.
 */
export async function resumeIssue(deps: CfdiDeps, actor: Actor, id: string) {
  const row = await getRow(deps.db, actor, id);
  if (row.status === 'en_cola') return queuedAnswer(row);
  if (row.status === 'fallido') throw rejected(row);
  return stampedAnswer(row);
}
