
import { statement } from '../db/prepared.ts';
import { fanOut } from './webhooks/delivery.ts';
import type { Environment } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';
import type { DbOrTx } from '../db/index.ts';

export const EVENT_TYPES = ['cfdi.timbrado', 'cfdi.cancelado', 'cfdi.fallido', 'cfdi.encolado', 'csd.por_vencer', 'csd.vencido'] as const;
export type EventType = (typeof EVENT_TYPES)[number];


/**
 * Every event of an invoice carries the integrator's external_id and metadata, read in the event's own transaction,
 * so a receiver can route it to its own order without a lookup.
 */
async function integratorReferences(tx: DbOrTx, cfdiId: unknown): Promise<{ external_id: string | null; metadata: Record<string, string> } | undefined> {
  if (typeof cfdiId !== 'string') return undefined;
  const row = await statement(tx, 'select external_id as externalId, metadata from cfdis where id = ?').get(cfdiId) as { externalId: string | null; metadata: string } | undefined;
  return row && { external_id: row.externalId, metadata: JSON.parse(row.metadata) as Record<string, string> };
}

const INSERT_EVENT = 'insert into events (id, tenant_id, environment, type, data, created_at) values (?, ?, ?, ?, ?, ?)';

/**
 * Writes an event row and its webhook deliveries; call it inside the transaction that makes the change it reports
 * (outbox): the change, the event and the deliveries commit together or not at all.
 */
export async function recordEvent(
  tx: DbOrTx,
  e: { tenantId: string; environment: Environment; type: EventType; data: Record<string, unknown>; now: Date },
): Promise<string> {
  const id = newId('evt', e.now.getTime());
  const createdAt = e.now.toISOString();
  const data = e.type.startsWith('cfdi.') ? { ...e.data, ...await integratorReferences(tx, e.data.cfdi_id) } : e.data;
  await statement(tx, INSERT_EVENT).run(id, e.tenantId, e.environment, e.type, JSON.stringify(data), createdAt);
  await fanOut(tx, { id, tenantId: e.tenantId, environment: e.environment, type: e.type, data, createdAt }, e.now);
  return id;
}
