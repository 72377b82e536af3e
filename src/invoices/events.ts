import { eq, sql } from 'drizzle-orm';
import { prepared } from '../db/prepared.ts';
import { fanOut } from './webhooks/delivery.ts';
import { cfdis, events, type Environment } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';
import type { DbOrTx } from '../db/index.ts';

export const EVENT_TYPES = [
  'cfdi.timbrado',
  'cfdi.cancelado',
  'cfdi.fallido',
  'cfdi.encolado',
  'cfdi.email_enviado',
  'cfdi.email_fallido',
  'cfdi.duplicate_stamp_cancelled',
  'retencion.timbrada',
  'retencion.cancelada',
  'retencion.fallida',
  'retencion.duplicate_stamp_cancelled',
  'csd.por_vencer',
  'csd.vencido',
  'receipt.created',
  'receipt.invoiced',
  'receipt.cancelled',
  'receipt.expired',
  'received_cfdi.created',
  'received_cfdi.invalid',
  'received_cfdi.cancelled',
  'received_cfdi.cancellation_requested',
  'received_cfdi.efos_listed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An invoice's integrator references: what its events carry so a receiver can route them to its own order. */
export interface IntegratorReferences {
  externalId: string | null;
  metadata: Record<string, string>;
}

/**
 * Every event of an invoice carries the integrator's external_id and metadata, read in the event's own transaction
 * unless the caller's statement there already returned them (`known`, a stamp's move).
 */
async function integratorReferences(
  tx: DbOrTx,
  cfdiId: unknown,
  known: IntegratorReferences | undefined,
): Promise<{ external_id: string | null; metadata: Record<string, string> } | undefined> {
  if (typeof cfdiId !== 'string') return undefined;
  if (known) return { external_id: known.externalId, metadata: known.metadata };
  // Prepared once per connection (here and below): every issued invoice records at least one event.
  const [row] = await prepared(tx, 'events.integratorReferences', (d) =>
    d
      .select({ externalId: cfdis.externalId, metadata: cfdis.metadata })
      .from(cfdis)
      .where(eq(cfdis.id, sql.placeholder('id')))
      .prepare(),
  ).execute({ id: cfdiId });
  return row && { external_id: row.externalId, metadata: row.metadata };
}

const insertEvent = (tx: DbOrTx, e: typeof events.$inferInsert) =>
  prepared(tx, 'events.insert', (d) =>
    d
      .insert(events)
      .values({
        id: sql.placeholder('id'),
        tenantId: sql.placeholder('tenantId'),
        environment: sql.placeholder('environment'),
        type: sql.placeholder('type'),
        data: sql.placeholder('data'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
  ).execute(e);

/**
 * Writes an event row and its webhook deliveries; call it inside the transaction that makes the change it reports
 * (outbox): the change, the event and the deliveries commit together or not at all. Returns how many deliveries it
 * queued: none, and there is nothing for the worker to send. `references`: the invoice's external_id and metadata as a
 * statement of this transaction returned them, instead of reading them again.
 */
export async function recordEvent(
  tx: DbOrTx,
  e: { tenantId: string; environment: Environment; type: EventType; data: Record<string, unknown>; now: Date; references?: IntegratorReferences },
): Promise<number> {
  const id = newId('evt', e.now.getTime());
  const createdAt = e.now.toISOString();
  const data = e.type.startsWith('cfdi.') ? { ...e.data, ...(await integratorReferences(tx, e.data.cfdi_id, e.references)) } : e.data;
  await insertEvent(tx, { id, tenantId: e.tenantId, environment: e.environment, type: e.type, data, createdAt });
  return (await fanOut(tx, { id, tenantId: e.tenantId, environment: e.environment, type: e.type, data, createdAt }, e.now)).length;
}
