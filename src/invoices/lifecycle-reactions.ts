import type { Tx } from '../db/index.ts';
import { followPagoStatus } from './cfdis/payments.ts';
import { onTransition, type From, type Move } from './cfdis/lifecycle.ts';
import { failWaitingEmails, queueWaitingEmails } from './emails/outbox.ts';
import { recordEvent } from './events.ts';
import { announceInvoiced, giveBackReceipts, holdReceipts, receiptsTakenBy } from './receipts/ledger.ts';

/**
 * What reacts to a CFDI's status moves, registered once at composition (createApp). The lifecycle runs them in the
 * move's transaction; each answers how many jobs it queued. docs/decisions.md, "One CFDI lifecycle", has the table.
 */

/** A stamp: from the issuing transaction (`new`), from the queue, or a withdrawn CFDI stamped by an attempt in flight. */
const STAMPED: From[] = ['new', 'en_cola', 'fallido'];

/** cfdi.timbrado, naming the receipt a customer's invoice came from, and one receipt.invoiced per receipt it took. */
async function announceStamp(tx: Tx, move: Move): Promise<number> {
  const { cfdi, uuid } = move;
  const taken = move.tookNoReceipts ? [] : await receiptsTakenBy(tx, cfdi.id);
  const deliveries = await recordEvent(tx, {
    tenantId: cfdi.tenantId,
    environment: cfdi.environment,
    type: 'cfdi.timbrado',
    data: { cfdi_id: cfdi.id, uuid, receipt_id: taken.find((r) => r.invoicedBy === 'self')?.id ?? null },
    now: move.at,
    references: move.references,
  });
  return deliveries + (await announceInvoiced(tx, cfdi, taken, uuid!, move.at));
}

export function registerLifecycleReactions(): void {
  onTransition(STAMPED, 'vigente', 'events.stamped', announceStamp);
  // The sendings asked for before the stamp (email_to, or POST /cfdis/{id}/email while queued) get their jobs.
  onTransition(STAMPED, 'vigente', 'emails.stamped', (tx, m) => queueWaitingEmails(tx, m.cfdi, m.at));

  onTransition('en_cola', 'fallido', 'events.failed', (tx, m) =>
    recordEvent(tx, {
      tenantId: m.cfdi.tenantId,
      environment: m.cfdi.environment,
      type: 'cfdi.fallido',
      data: m.withdrawn ? { cfdi_id: m.cfdi.id, reason: 'withdrawn' } : { cfdi_id: m.cfdi.id },
      now: m.at,
    }),
  );
  onTransition('en_cola', 'fallido', 'emails.failed', (tx, m) =>
    failWaitingEmails(tx, m.cfdi, m.withdrawn ? 'not sent: the CFDI was withdrawn before stamping' : `not sent: the CFDI was not stamped (${m.reason})`, m.at),
  );
  // A failure gives the receipts back at once; a withdrawal holds them until an attempt in flight has settled.
  onTransition('en_cola', 'fallido', 'receipts.failed', (tx, m) => (m.withdrawn ? holdReceipts(tx, m) : giveBackReceipts(tx, m.cfdi.id, m.at)));

  onTransition('cancelacion_pendiente', 'cancelado', 'events.cancelled', (tx, m) =>
    recordEvent(tx, {
      tenantId: m.cfdi.tenantId,
      environment: m.cfdi.environment,
      type: 'cfdi.cancelado',
      data: { cfdi_id: m.cfdi.id, ...m.detail },
      now: m.at,
    }),
  );
  // A cancelled global invoice or self-invoice declares its sales no more: they can go into another CFDI.
  onTransition('cancelacion_pendiente', 'cancelado', 'receipts.cancelled', (tx, m) => giveBackReceipts(tx, m.cfdi.id, m.at));

  // A Pago that will never stand (fallido, cancelado) frees its instalment numbers; one stamped after all holds them again.
  const pagos = (tx: Tx, m: Move) => followPagoStatus(tx, m.cfdi.id, m.to, m.at);
  onTransition('*', 'fallido', 'payments.status', pagos);
  onTransition('*', 'cancelado', 'payments.status', pagos);
  onTransition('fallido', 'vigente', 'payments.status', pagos);
}
