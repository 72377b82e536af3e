import { createHmac } from 'node:crypto';
import { and, desc, eq, gt, gte, lt, lte, or, sql } from 'drizzle-orm';
import {
  endedPeriods,
  globalInvoiceRequest,
  globalPeriod,
  PUBLICO_EN_GENERAL,
  type GlobalPeriod,
  type Periodicidad,
  ticketAmounts,
} from '../../cfdi/global-invoice.ts';
import { Dec } from '../../cfdi/decimal.ts';
import type { ReceptorInput } from '../../cfdi/input.ts';
import { prepareInvoice } from '../../cfdi/prepare.ts';
import { localDateTime, timeZoneOf, zonedToUtc } from '../../cfdi/time.ts';
import type { Db } from '../../db/client.ts';
import { uniqueViolation } from '../../db/engine.ts';
import { withTransaction, type Tx } from '../../db/index.ts';
import { readSetting, writeSetting } from '../../db/settings.ts';
import { cfdis, receipts, receiptSettings, type Environment, type ReceiptStatus } from '../../db/schema/index.ts';
import type { AuditInTransaction } from '../../lib/audit.ts';
import type { Actor } from '../../lib/backend.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { conflict, invalidInput, notFound, ServiceError, type ErrorDetail } from '../../lib/service-error.ts';
import { emisorOf, issueCfdi, type CfdiDeps } from '../cfdis/issue.ts';
import { recordEvent } from '../events.ts';
import { markInvoiced, receiptEventData, takeOverReceipts } from './ledger.ts';
import { toReceipt, type GlobalInvoiceRequest, type ReceiptCreate, type ReceiptInvoice, type ReceiptRow } from './schemas.ts';

export interface ReceiptDeps extends CfdiDeps {
  /**
   * PUBLIC_BASE_URL: where customers reach this server (self_invoice_url); none: no link. Never the request's own
   * origin: its Host header is the client's to write, and a forged one would be printed on the ticket.
   */
  publicBaseUrl?: string;
}

interface Scope {
  tenantId: string;
  environment: Environment;
}

const scoped = (s: Scope) => and(eq(receipts.tenantId, s.tenantId), eq(receipts.environment, s.environment));

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A receipt's self-invoice key: 26 Crockford base32 characters (130 bits) of an HMAC of its id under the master key.
 * Derived, not stored: the database holds only its hash, and a leaked database yields no key.
 */
function selfInvoiceKey(masterKey: Buffer, receiptId: string): string {
  const mac = createHmac('sha256', masterKey).update(`receipt-self-invoice:${receiptId}`).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of mac) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length === 26) break;
  }
  return out;
}

/** A key as a person types it: any case, spaces and hyphens, O for 0 and I or L for 1 (Crockford's reading). */
const normalizeKey = (typed: string): string => typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');

/** A ticket key as stored and counted: however it was typed, one key is one hash. */
export const keyHashOf = (key: string) => sha256Hex(normalizeKey(key));

const selfInvoiceUrl = (baseUrl: string | undefined, masterKey: Buffer, r: { id: string; tenantId: string }) =>
  baseUrl === undefined ? null : `${baseUrl.replace(/\/+$/, '')}/portal/${r.tenantId}?clave=${selfInvoiceKey(masterKey, r.id)}`;

const wire = (deps: ReceiptDeps) => (r: ReceiptRow) => toReceipt(r, selfInvoiceUrl(deps.publicBaseUrl, deps.masterKey, r));

/** The end of the month `localDay` falls in, in the issuer's time zone: until then its customer may invoice it. */
function endOfMonth(localDay: string, codigoPostal: string): string {
  const y = Number(localDay.slice(0, 4));
  const m = Number(localDay.slice(5, 7));
  const next = m === 12 ? `${y + 1}-01-01T00:00:00` : `${y}-${String(m + 1).padStart(2, '0')}-01T00:00:00`;
  return new Date(zonedToUtc(next, timeZoneOf(codigoPostal)).getTime() - 1000).toISOString();
}

/** The next free automatic folio: the counter, past any folio a ticket was given by hand. Inside the receipt's transaction. */
async function nextFolio(tx: Tx, scope: Scope): Promise<string> {
  for (;;) {
    const [row] = await tx
      .insert(receiptSettings)
      .values({ tenantId: scope.tenantId, environment: scope.environment, nextFolio: 2 })
      .onConflictDoUpdate({ target: [receiptSettings.tenantId, receiptSettings.environment], set: { nextFolio: sql`${receiptSettings.nextFolio} + 1` } })
      .returning({ next: receiptSettings.nextFolio });
    const folio = String(row!.next - 1);
    const [taken] = await tx
      .select({ id: receipts.id })
      .from(receipts)
      .where(and(scoped(scope), eq(receipts.folio, folio)));
    if (!taken) return folio;
  }
}

/** POST /receipts: the conceptos checked and computed as an invoice of them to the general public would be. */
export async function createReceipt(deps: ReceiptDeps, actor: Actor, body: ReceiptCreate, bindIdempotency?: IdempotencyClaim['bind']) {
  const emisor = await emisorOf(deps, actor);
  const now = deps.now();
  const fecha = localDateTime(now, emisor.codigoPostal);
  const prepared = prepareInvoice(
    {
      tipo: 'I',
      forma_pago: body.forma_pago,
      metodo_pago: 'PUE',
      receptor: PUBLICO_EN_GENERAL(emisor.codigoPostal),
      informacion_global: { periodicidad: '01', meses: fecha.slice(5, 7), anio: fecha.slice(0, 4) },
      conceptos: body.conceptos,
    },
    { emisor, receptor: PUBLICO_EN_GENERAL(emisor.codigoPostal), now },
  );
  const errors: ErrorDetail[] = [...prepared.errors];
  if (body.forma_pago === '99') errors.push({ field: 'forma_pago', issue: '99 (Por definir) is for an invoice paid later: say how the ticket was paid' });
  if (errors.length > 0 || !prepared.model) throw invalidInput('The receipt fails validation', errors);
  const amounts = ticketAmounts(prepared.model);
  const scope = { tenantId: actor.tenantId, environment: actor.environment };
  const id = newId('rcpt', now.getTime());
  const stamp = now.toISOString();
  let deliveries = 0;
  try {
    // serializable: the folio counter orders the folios, but whether a folio is taken is read (a manual one)
    const row = await withTransaction(deps.db, { isolation: 'serializable', name: 'receipts.create' }, async (tx) => {
      const folio = body.folio ?? (await nextFolio(tx, scope));
      const [inserted] = await tx
        .insert(receipts)
        .values({
          id,
          ...scope,
          folio,
          status: 'open',
          fecha: prepared.model!.fecha,
          formaPago: body.forma_pago,
          conceptos: body.conceptos,
          subtotal: amounts.subtotal,
          descuento: amounts.descuento ?? null,
          total: amounts.total,
          taxes: amounts.taxes,
          keyHash: keyHashOf(selfInvoiceKey(deps.masterKey, id)),
          expiresAt: endOfMonth(fecha, emisor.codigoPostal),
          createdAt: stamp,
          updatedAt: stamp,
        })
        .returning();
      deliveries = await recordEvent(tx, { ...scope, type: 'receipt.created', data: receiptEventData(inserted!), now });
      await bindIdempotency?.(tx, id);
      return inserted!;
    });
    if (deliveries > 0) deps.wakeJobs(); // its webhook deliveries go out now, not at the next tick
    return wire(deps)(row);
  } catch (err) {
    if (uniqueViolation(err)?.table === 'receipts' && body.folio !== undefined)
      throw conflict(`A receipt with folio ${body.folio} already exists`, [
        { field: 'folio', issue: `${body.folio} is already used in this tenant and environment` },
      ]);
    throw err;
  }
}

async function getRow(db: Db | Tx, scope: Scope, id: string): Promise<ReceiptRow> {
  const [row] = await db
    .select()
    .from(receipts)
    .where(and(eq(receipts.id, id), scoped(scope)));
  if (!row) throw notFound('Receipt');
  return row;
}

export async function getReceipt(deps: ReceiptDeps, actor: Actor, id: string) {
  return wire(deps)(await getRow(deps.db, actor, id));
}

/** GET /receipts: newest first; by status and by the day of the sale (issuer's local date). */
export async function listReceipts(
  deps: ReceiptDeps,
  actor: Actor,
  q: { limit: number; cursor?: string; status?: ReceiptStatus; desde?: string; hasta?: string; cfdi_id?: string },
) {
  const before = decodeCursor(q.cursor);
  const rows = await deps.db
    .select()
    .from(receipts)
    .where(
      and(
        scoped(actor),
        before ? lt(receipts.id, before) : undefined,
        q.status ? eq(receipts.status, q.status) : undefined,
        q.desde ? gte(receipts.fecha, q.desde) : undefined,
        q.hasta ? lte(receipts.fecha, `${q.hasta}T23:59:59`) : undefined,
        q.cfdi_id ? eq(receipts.cfdiId, q.cfdi_id) : undefined,
      ),
    )
    .orderBy(desc(receipts.id))
    .limit(q.limit + 1);
  return page(rows, q.limit, wire(deps));
}

/** Why a receipt that is not open cannot be invoiced or cancelled, in words its reader can act on. */
function notOpen(row: ReceiptRow, action: 'invoiced' | 'cancelled'): Error {
  if (row.status === 'cancelled') return conflict(`Receipt ${row.id} is cancelled`, [{ field: 'status', issue: `is cancelled: it cannot be ${action}` }]);
  if (row.invoicedBy === 'global')
    return conflict(`Receipt ${row.id} is in the global invoice ${row.cfdiId}`, [
      {
        field: 'status',
        issue:
          `was included in the global invoice to the general public ${row.cfdiId}: a sale in a global invoice cannot be invoiced again to a customer ` +
          '(the same sale would be declared twice); the issuer must first cancel or correct the global invoice',
      },
    ]);
  return conflict(`Receipt ${row.id} is already invoiced by ${row.cfdiId}`, [{ field: 'status', issue: `is already invoiced by CFDI ${row.cfdiId}` }]);
}

/** POST /receipts/{id}/cancel: an open receipt only; a cancelled one is neither self-invoiced nor in a global invoice. */
export async function cancelReceipt(deps: ReceiptDeps, actor: Actor, id: string) {
  const now = deps.now();
  const stamp = now.toISOString();
  let deliveries = 0;
  // serializable: the receipt's status read decides the cancellation and its event
  const row = await withTransaction(deps.db, { isolation: 'serializable', name: 'receipts.cancel' }, async (tx) => {
    const current = await getRow(tx, actor, id);
    if (current.status !== 'open') throw notOpen(current, 'cancelled');
    const [cancelled] = await tx
      .update(receipts)
      .set({ status: 'cancelled', cancelledAt: stamp, updatedAt: stamp })
      .where(and(eq(receipts.id, id), eq(receipts.status, 'open')))
      .returning();
    deliveries = await recordEvent(tx, {
      tenantId: actor.tenantId,
      environment: actor.environment,
      type: 'receipt.cancelled',
      data: receiptEventData(cancelled!),
      now,
    });
    return cancelled!;
  });
  if (deliveries > 0) deps.wakeJobs();
  return wire(deps)(row);
}

/**
 * POST /receipts/{id}/invoice (and the portal): a CFDI of the receipt's conceptos to its customer. The receipt is
 * marked in the invoice's own transaction, so two requests for one receipt make one CFDI. `auditIn`: the request's
 * audit row, about the receipt, written in that transaction too when it stamps (see AuditInTransaction).
 */
export async function invoiceReceipt(
  deps: ReceiptDeps,
  actor: Actor,
  id: string,
  body: ReceiptInvoice,
  auditIn?: AuditInTransaction,
  bindIdempotency?: IdempotencyClaim['bind'],
) {
  const row = await getRow(deps.db, actor, id);
  if (row.status !== 'open') throw notOpen(row, 'invoiced');
  if (Date.parse(row.expiresAt) < deps.now().getTime())
    throw conflict(`Receipt ${row.id} expired at ${row.expiresAt}`, [
      { field: 'expires_at', issue: `its customer could invoice it until ${row.expiresAt}: it now goes into the global invoice of its period` },
    ]);
  if (body.receptor.rfc.toUpperCase() === 'XAXX010101000')
    throw invalidInput('A ticket is invoiced to a customer with an RFC', [
      {
        field: 'receptor.rfc',
        issue: "XAXX010101000 (público en general) is not a customer: the general public's tickets go into the global invoice (POST /receipts/global-invoice)",
      },
    ]);
  return issueCfdi(
    deps,
    actor,
    {
      tipo: 'I',
      forma_pago: row.formaPago,
      metodo_pago: 'PUE',
      receptor: body.receptor as ReceptorInput,
      conceptos: row.conceptos as ReceiptCreate['conceptos'],
      ...(body.email_to ? { email_to: body.email_to } : {}),
      metadata: { receipt_id: row.id, receipt_folio: row.folio },
    },
    {
      recordWith: async (tx, cfdiId) => {
        if ((await markInvoiced(tx, [row.id], cfdiId, 'self', deps.now())) !== 1) throw notOpen(await getRow(tx, actor, id), 'invoiced');
      },
      auditIn: auditIn && ((tx, _cfdiId, status) => auditIn(tx, row.id, status)),
      bindIdempotency,
    },
  );
}

/** What the portal shows of a receipt found by its key. */
export interface PortalReceipt {
  id: string;
  tenantId: string;
  environment: Environment;
  folio: string;
  fecha: string;
  total: string;
  status: ReceiptStatus;
  invoicedBy: 'self' | 'global' | null;
  cfdiId: string | null;
  expiresAt: string;
  conceptos: { descripcion: string; cantidad: string; importe: string }[];
}

/** The receipt with this key in this tenant (either environment), or undefined: another tenant's key is not found. */
export async function findReceiptByKey(db: Db, tenantId: string, key: string): Promise<PortalReceipt | undefined> {
  const [row] = await db
    .select()
    .from(receipts)
    .where(and(eq(receipts.keyHash, keyHashOf(key)), eq(receipts.tenantId, tenantId)));
  if (!row) return undefined;
  return {
    id: row.id,
    tenantId: row.tenantId,
    environment: row.environment,
    folio: row.folio,
    fecha: row.fecha,
    total: row.total,
    status: row.status,
    invoicedBy: row.invoicedBy,
    cfdiId: row.cfdiId,
    expiresAt: row.expiresAt,
    conceptos: (row.conceptos as ReceiptCreate['conceptos']).map((c) => ({
      descripcion: c.descripcion,
      cantidad: c.cantidad,
      importe: Dec.parse(c.cantidad).mul(Dec.parse(c.valor_unitario)).round(2).toString(),
    })),
  };
}

/**
 * The global invoice of a period: one concepto per open receipt of it, and each of them marked invoiced by it in
 * the invoice's transaction (a receipt invoiced or cancelled meanwhile makes it 409: send it again).
 */
export async function issueGlobalInvoice(deps: ReceiptDeps, actor: Actor, body: GlobalInvoiceRequest, bindIdempotency?: IdempotencyClaim['bind']) {
  const problems: ErrorDetail[] = [];
  const period = globalPeriod(body, problems);
  if (!period) throw invalidInput('Invalid period', problems);
  const replaced = body.replaces === undefined ? undefined : await replacedGlobalInvoice(deps, actor, body.replaces);
  return issueForPeriod(deps, actor, period, body.email_to, body.meses !== undefined ? 'meses' : 'desde', bindIdempotency, replaced);
}

/** The global invoice a new one replaces (`replaces`): vigente (SAT's substitution) or cancelado; 400 naming the field otherwise. */
async function replacedGlobalInvoice(deps: ReceiptDeps, actor: Actor, ref: string): Promise<Replaced> {
  const field = 'replaces';
  const [old] = await deps.db
    .select({ id: cfdis.id, uuid: cfdis.uuid, status: cfdis.status, metadata: cfdis.metadata })
    .from(cfdis)
    .where(and(eq(cfdis.id, ref), eq(cfdis.tenantId, actor.tenantId), eq(cfdis.environment, actor.environment)));
  if (!old) throw invalidInput('Invalid replaces', [{ field, issue: `no CFDI ${ref} in this tenant and environment` }]);
  if (old.metadata.global_invoice === undefined)
    throw invalidInput('Invalid replaces', [{ field, issue: `${ref} is not a global invoice (POST /receipts/global-invoice issued none with this id)` }]);
  if (old.status !== 'vigente' && old.status !== 'cancelado') {
    const what = old.status === 'cancelacion_pendiente' ? 'its cancellation is in progress: replace it once it ends' : 'it was never stamped';
    throw invalidInput('Invalid replaces', [{ field, issue: `${ref} is ${old.status}: ${what}` }]);
  }
  return { id: old.id, uuid: old.uuid!, status: old.status };
}

/** The ObjetoImp all of a ticket's conceptos share (02 where a concepto names none: it has taxes), or none. */
function sharedObjetoImp(conceptos: { objeto_imp?: string }[]): string | undefined {
  const objetos = new Set(conceptos.map((c) => c.objeto_imp ?? '02'));
  return objetos.size === 1 ? [...objetos][0] : undefined;
}

/** A global invoice being replaced: vigente (its receipts move to the replacement) or cancelado (they were given back). */
interface Replaced {
  id: string;
  uuid: string;
  status: 'vigente' | 'cancelado';
}

async function issueForPeriod(
  deps: ReceiptDeps,
  actor: Actor,
  period: GlobalPeriod,
  emailTo?: string[],
  periodField = 'desde',
  bindIdempotency?: IdempotencyClaim['bind'],
  replaced?: Replaced,
) {
  const emisor = await emisorOf(deps, actor);
  const inPeriod = and(gte(receipts.fecha, period.desde), lte(receipts.fecha, `${period.hasta}T23:59:59`));
  // Replacing a vigente one declares the same sales, its receipts (a failed replacement gives them back to it):
  // the open receipts of the period go into a global invoice of their own.
  const substitutes = replaced?.status === 'vigente';
  const open = await deps.db
    .select()
    .from(receipts)
    .where(
      and(scoped(actor), substitutes ? and(eq(receipts.cfdiId, replaced!.id), eq(receipts.status, 'invoiced')) : and(eq(receipts.status, 'open'), inPeriod)),
    )
    .orderBy(receipts.fecha, receipts.id);
  const outside = substitutes ? open.filter((r) => r.fecha < period.desde || r.fecha > `${period.hasta}T23:59:59`) : [];
  if (outside.length > 0)
    throw invalidInput('Invalid period', [
      {
        field: periodField,
        issue: `the receipts of ${replaced!.id} are of ${open[0]!.fecha.slice(0, 10)}..${open.at(-1)!.fecha.slice(0, 10)}: give its period`,
      },
    ]);
  if (open.length === 0 && substitutes)
    throw invalidInput('Invalid replaces', [{ field: 'replaces', issue: `${replaced!.id} holds no receipt: it was replaced already` }]);
  if (open.length === 0)
    throw invalidInput('No open receipts in the period', [
      { field: periodField, issue: `no open receipt from ${period.desde} to ${period.hasta}: every one is invoiced or cancelled, or there were none` },
    ]);
  const tickets = open.map((r) => ({
    folio: r.folio,
    formaPago: r.formaPago,
    subtotal: r.subtotal,
    ...(r.descuento ? { descuento: r.descuento } : {}),
    total: r.total,
    taxes: r.taxes,
    objetoImp: sharedObjetoImp(r.conceptos as ReceiptCreate['conceptos']),
  }));
  const ids = open.map((r) => r.id);
  return withRequestFields(
    issueCfdi(
      deps,
      actor,
      {
        ...globalInvoiceRequest(tickets, period, emisor.codigoPostal),
        // SAT's substitution: the replacement names the one it replaces (TipoRelacion 04); its cancellation (motivo 01) names this one.
        ...(substitutes ? { cfdi_relacionados: [{ tipo_relacion: '04', uuids: [replaced!.uuid] }] } : {}),
        ...(emailTo ? { email_to: emailTo } : {}),
        metadata: {
          global_invoice: `${period.desde}..${period.hasta}`,
          receipts: String(ids.length),
          ...(replaced ? { replaces: replaced.id } : {}),
        },
      },
      {
        recordWith: async (tx, cfdiId) => {
          if (substitutes) {
            const [old] = await tx.select({ status: cfdis.status }).from(cfdis).where(eq(cfdis.id, replaced!.id));
            if (old?.status !== 'vigente' || (await takeOverReceipts(tx, replaced!.id, cfdiId, deps.now())) !== ids.length)
              throw conflict(`The global invoice ${replaced!.id} changed meanwhile`, [
                { field: 'replaces', issue: `${replaced!.id} is no longer vigente with the same receipts: send the request again` },
              ]);
            return;
          }
          if ((await markInvoiced(tx, ids, cfdiId, 'global', deps.now())) !== ids.length)
            throw conflict('A receipt of the period was invoiced or cancelled meanwhile', [
              { field: periodField, issue: 'a receipt changed while the global invoice was being issued: send the request again' },
            ]);
        },
        bindIdempotency,
      },
    ),
  );
}

/** The engine names InformacionGlobal's fields as a CFDI request has them; this request has them at its top level. */
async function withRequestFields<T>(issuing: Promise<T>): Promise<T> {
  try {
    return await issuing;
  } catch (err) {
    if (err instanceof ServiceError && err.kind === 'invalid_input')
      throw new ServiceError(
        err.kind,
        err.message,
        err.details.map((d) => (d.field.startsWith('informacion_global.') ? { ...d, field: d.field.slice('informacion_global.'.length) } : d)),
      );
    throw err;
  }
}

/** GET /receipts/settings. */
export async function getReceiptSettings(deps: ReceiptDeps, actor: Actor) {
  const [row] = await deps.db
    .select()
    .from(receiptSettings)
    .where(and(eq(receiptSettings.tenantId, actor.tenantId), eq(receiptSettings.environment, actor.environment)));
  return { auto_global_invoice: (row?.autoGlobalPeriodicidad as Periodicidad | null) ?? null, auto_global_invoice_through: row?.autoGlobalThrough ?? null };
}

/** PATCH /receipts/settings: turning the automatic global invoice on starts with the last period that ended. */
export async function updateReceiptSettings(deps: ReceiptDeps, actor: Actor, body: { auto_global_invoice: Periodicidad | null }) {
  const stamp = deps.now().toISOString();
  await deps.db
    .insert(receiptSettings)
    .values({ tenantId: actor.tenantId, environment: actor.environment, autoGlobalPeriodicidad: body.auto_global_invoice, updatedAt: stamp })
    .onConflictDoUpdate({
      target: [receiptSettings.tenantId, receiptSettings.environment],
      set: { autoGlobalPeriodicidad: body.auto_global_invoice, autoGlobalThrough: null, updatedAt: stamp },
    });
  return getReceiptSettings(deps, actor);
}

/**
 * The scheduled global invoices: for every tenant that asked for them, each period that ended since the last one
 * covered, oldest first (a period without open receipts is passed over). Idempotent: the day covered is recorded
 * with the invoice, so a second run, here or on another instance, finds nothing to do.
 */
export async function issueScheduledGlobalInvoices(deps: ReceiptDeps & { logger: Logger }): Promise<{ issued: number; failed: number }> {
  const due = await deps.db.select().from(receiptSettings).where(sql`${receiptSettings.autoGlobalPeriodicidad} is not null`);
  let issued = 0;
  let failed = 0;
  for (const setting of due) {
    const actor: Actor = { type: 'api_key', id: 'scheduler', role: 'ADMIN', tenantId: setting.tenantId, environment: setting.environment };
    let emisor: Awaited<ReturnType<typeof emisorOf>>;
    try {
      emisor = await emisorOf(deps, actor);
    } catch {
      continue; // the tenant is gone
    }
    const today = localDateTime(deps.now(), emisor.codigoPostal).slice(0, 10);
    for (const period of endedPeriods(setting.autoGlobalPeriodicidad as Periodicidad, today, setting.autoGlobalThrough ?? undefined)) {
      try {
        await issueForPeriod(deps, actor, period);
        issued++;
      } catch (err) {
        const empty = err instanceof Error && err.message === 'No open receipts in the period';
        if (!empty) {
          failed++;
          deps.logger.warn('automatic global invoice failed', { tenant: setting.tenantId, environment: setting.environment, period, error: String(err) });
          break; // tried again at the next run, from this period
        }
      }
      await deps.db
        .update(receiptSettings)
        .set({ autoGlobalThrough: period.hasta, updatedAt: deps.now().toISOString() })
        .where(and(eq(receiptSettings.tenantId, setting.tenantId), eq(receiptSettings.environment, setting.environment)));
    }
  }
  return { issued, failed };
}

const EXPIRY_CURSOR = 'receipts.expiry_announced_through';
const EXPIRY_BATCH = 500;

/**
 * receipt.expired, once per receipt: each open receipt past its expires_at (its customer can no longer invoice it; it
 * waits for a global invoice), in batches ordered by (expires_at, id). The last one announced is a cursor in
 * `settings`, moved in the events' transaction, so a second run, here or on another instance, finds nothing again.
 */
export async function announceExpiredReceipts(db: Db, now: Date): Promise<{ expired: number }> {
  let expired = 0;
  for (;;) {
    // serializable: the cursor read decides the batch (a second instance finds nothing again)
    const batch = await withTransaction(db, { isolation: 'serializable', name: 'receipts.expiry' }, async (tx) => {
      const [through = '', lastId = ''] = ((await readSetting(tx, EXPIRY_CURSOR))?.toString('utf8') ?? '').split(' ');
      const due = await tx
        .select()
        .from(receipts)
        .where(
          and(
            eq(receipts.status, 'open'),
            lte(receipts.expiresAt, now.toISOString()),
            or(gt(receipts.expiresAt, through), and(eq(receipts.expiresAt, through), gt(receipts.id, lastId))),
          ),
        )
        .orderBy(receipts.expiresAt, receipts.id)
        .limit(EXPIRY_BATCH);
      for (const r of due) await recordEvent(tx, { tenantId: r.tenantId, environment: r.environment, type: 'receipt.expired', data: receiptEventData(r), now });
      const last = due.at(-1);
      if (last) await writeSetting(tx, EXPIRY_CURSOR, Buffer.from(`${last.expiresAt} ${last.id}`, 'utf8'), now);
      return due.length;
    });
    expired += batch;
    if (batch < EXPIRY_BATCH) return { expired };
  }
}
