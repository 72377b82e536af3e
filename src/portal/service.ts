import type { Tx } from '../db/index.ts';
import type { Actor } from '../lib/backend.ts';
import { ServiceError } from '../lib/service-error.ts';
import { timeZoneOf } from '../cfdi/time.ts';
import { emisorOf } from '../invoices/cfdis/issue.ts';
import { getCfdi, getCfdiPdf, getCfdiXml } from '../invoices/cfdis/reads.ts';
import { findReceiptByKey, invoiceReceipt, keyHashOf, type PortalReceipt, type ReceiptDeps } from '../invoices/receipts/service.ts';
import type { RateLimiter } from '../gateway/rate-limit.ts';
import { blockedReason, deadlineNotice, portalDetails, type PortalReceptor } from './messages.ts';

export type PortalDeps = ReceiptDeps;

/** The portal's downloads render on a share of the PDF pool of their own, whichever tenant's portal asked. */
const PDF_POOL_OWNER = 'portal';

/** One answer for a key that does not exist, belongs to another tenant or to a tenant that does not exist. */
const ticketNotFound = () =>
  new ServiceError('not_found', 'Ticket no encontrado', [
    { field: 'clave', issue: 'No hay ningún ticket con esta clave en este comercio: revisa que la hayas escrito como aparece en el ticket.' },
  ]);

/** The portal acts on the receipt's own environment, as an operator of its tenant would. */
const actorFor = (r: PortalReceipt): Actor => ({ type: 'api_key', id: 'portal', role: 'OPERATOR', tenantId: r.tenantId, environment: r.environment });

async function receiptOf(deps: PortalDeps, tenantId: string, key: string): Promise<PortalReceipt> {
  const receipt = await findReceiptByKey(deps.db, tenantId, key);
  if (!receipt) throw ticketNotFound();
  return receipt;
}

/** The issuer's time zone, where a ticket's deadline is a date. */
const zoneOf = async (deps: PortalDeps, tenantId: string) => timeZoneOf((await emisorOf(deps, { tenantId })).codigoPostal);

/** GET /portal/{tenant_id}/ticket: what the ticket shows, and whether it can still be invoiced (and why not). */
export async function lookupTicket(deps: PortalDeps, tenantId: string, key: string) {
  const r = await receiptOf(deps, tenantId, key);
  const zone = await zoneOf(deps, tenantId);
  const reason = blockedReason(r, deps.now(), zone);
  return {
    folio: r.folio,
    fecha: r.fecha,
    total: Number(r.total),
    conceptos: r.conceptos.map((c) => ({ descripcion: c.descripcion, cantidad: Number(c.cantidad), importe: Number(c.importe) })),
    status: r.status,
    invoiced_by: r.invoicedBy,
    expires_at: r.expiresAt,
    can_invoice: reason === undefined,
    ...(reason ? { reason } : { deadline: deadlineNotice(r.expiresAt, zone) }),
    can_download: r.status === 'invoiced' && r.invoicedBy === 'self',
  };
}

/**
 * POST /portal/{tenant_id}/ticket/invoice: stamps the ticket's CFDI to the customer. Email only where SMTP is
 * configured: without it the invoice is still issued and the answer says the email was not sent. `auditIn`: the
 * tenant's audit row for it, written in the invoice's transaction when it stamps there.
 */
export async function invoiceTicket(
  deps: PortalDeps,
  tenantId: string,
  body: { clave: string; receptor: PortalReceptor; email?: string },
  auditIn?: (tx: Tx, receipt: PortalReceipt) => Promise<void>,
) {
  const r = await receiptOf(deps, tenantId, body.clave);
  const reason = blockedReason(r, deps.now(), await zoneOf(deps, tenantId));
  if (reason) throw new ServiceError('conflict', reason, [{ field: 'clave', issue: reason }]);
  // A test ticket's customer is nobody's user: its email goes only to the operator's capture mailbox, if there is one.
  const canEmail = deps.mailer !== undefined && (r.environment === 'live' || deps.mailer.testCapture !== undefined);
  const email: 'queued' | 'unavailable' | 'not_requested' = body.email ? (canEmail ? 'queued' : 'unavailable') : 'not_requested';
  let cfdi: Awaited<ReturnType<typeof invoiceReceipt>>['body'];
  try {
    ({ body: cfdi } = await invoiceReceipt(
      deps,
      actorFor(r),
      r.id,
      { receptor: body.receptor, ...(email === 'queued' ? { email_to: [body.email!] } : {}) },
      auditIn && ((tx) => auditIn(tx, r)),
    ));
  } catch (err) {
    throw await portalError(deps, tenantId, body, err);
  }
  return {
    receipt: r,
    id: cfdi.id,
    uuid: cfdi.uuid,
    status: cfdi.status,
    folio: r.folio,
    total: Number(r.total),
    email: { status: email, ...(body.email ? { to: body.email } : {}) },
  };
}

/** A refusal of the receipts service, told in the portal's words. */
async function portalError(deps: PortalDeps, tenantId: string, body: { clave: string; receptor: PortalReceptor }, err: unknown): Promise<unknown> {
  if (!(err instanceof ServiceError)) return err;
  switch (err.kind) {
    case 'invalid_input':
    case 'rejected':
      return new ServiceError(err.kind, 'Revisa tus datos fiscales: el SAT no acepta la factura así', portalDetails(err.details, body.receptor));
    case 'not_found':
      return ticketNotFound();
    case 'conflict': {
      // Another request may have invoiced it meanwhile: say what the ticket is now.
      const now = await findReceiptByKey(deps.db, tenantId, body.clave);
      const reason = (now && blockedReason(now, deps.now(), await zoneOf(deps, tenantId))) ?? 'Este ticket ya no se puede facturar.';
      return new ServiceError('conflict', reason, [{ field: 'clave', issue: reason }]);
    }
    case 'too_many': {
      // The issuer's email budget, the only refusal of its kind here: the ticket can still be invoiced without email.
      const issue = 'Este comercio ya envió hoy todos los correos que puede: factura sin correo y descarga tu factura, o intenta mañana.';
      return new ServiceError('too_many', issue, [{ field: 'email', issue }], err.retryAfterSeconds);
    }
    case 'unavailable':
      return new ServiceError('unavailable', 'El servicio de timbrado no está disponible en este momento: intenta de nuevo en unos minutos', err.details);
    default:
      return err;
  }
}

/**
 * Downloads (PDF and XML together, any outcome) per ticket key and hour, from every address together: a customer
 * downloads a few times, and clients rotating addresses do not multiply it (docs/decisions.md, "One PDF pool for all").
 */
export const DOWNLOADS_PER_KEY_PER_HOUR = 20;

/**
 * The XML or PDF of the CFDI this very ticket was invoiced with by its customer (never a global invoice, which
 * holds other customers' tickets), up to DOWNLOADS_PER_KEY_PER_HOUR times an hour. The RFC it was issued to must be
 * given too: a ticket's key alone, found on a discarded ticket, does not hand out its customer's fiscal data. An
 * unknown key and a wrong RFC get one and the same 404, so the answer tells nothing about either; both are counted.
 */
export async function ticketDocument(deps: PortalDeps, downloads: RateLimiter, tenantId: string, key: string, rfc: string, format: 'xml' | 'pdf') {
  const [spent] = await downloads.hit([{ key: `${tenantId}:${keyHashOf(key)}`, limit: DOWNLOADS_PER_KEY_PER_HOUR }]);
  if (!spent!.allowed) {
    const minutes = Math.ceil(spent!.retryAfter / 60);
    throw new ServiceError(
      'too_many',
      `Demasiadas descargas de este ticket: hasta ${DOWNLOADS_PER_KEY_PER_HOUR} por hora`,
      [
        {
          field: 'clave',
          issue: `Este ticket ya se descargó ${DOWNLOADS_PER_KEY_PER_HOUR} veces en esta hora (PDF y XML juntos): intenta de nuevo en ${minutes} minuto${minutes === 1 ? '' : 's'}.`,
        },
      ],
      spent!.retryAfter,
    );
  }
  const missing = new ServiceError('not_found', 'Factura no encontrada', [
    { field: 'rfc', issue: 'No hay una factura de este ticket emitida a ese RFC en este portal: revisa la clave del ticket y el RFC.' },
  ]);
  const r = await findReceiptByKey(deps.db, tenantId, key);
  if (!r) throw missing;
  if (r.status !== 'invoiced' || r.invoicedBy !== 'self' || !r.cfdiId) throw missing;
  const actor = actorFor(r);
  const cfdi = await getCfdi(deps, actor, r.cfdiId);
  if (cfdi.receptor.rfc.toUpperCase() !== rfc.trim().toUpperCase()) throw missing;
  if (!cfdi.uuid)
    throw new ServiceError('not_found', 'La factura todavía se está timbrando: intenta de nuevo en unos minutos', [{ field: 'uuid', issue: 'en_cola' }]);
  if (format === 'xml') {
    const { uuid, xml } = await getCfdiXml(deps, actor, r.cfdiId);
    return { uuid, bytes: new Uint8Array(xml), type: 'application/xml' };
  }
  // Rendered (once per state) on the portal's share of the pool, never a tenant's: the portal has no credential.
  const { uuid, pdf } = await getCfdiPdf(deps, actor, r.cfdiId, PDF_POOL_OWNER);
  return { uuid, bytes: pdf, type: 'application/pdf' };
}
