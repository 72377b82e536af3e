import type { Db } from '../db/client.ts';
import { statement } from '../db/prepared.ts';
import { fanOut } from './webhooks/delivery.ts';
import type { Environment } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';

export const EVENT_TYPES = ['cfdi.timbrado', 'cfdi.cancelado', 'cfdi.fallido', 'cfdi.encolado', 'csd.por_vencer', 'csd.vencido'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

type Tx = Pick<Db, 'insert'>;

const INSERT_EVENT = 'insert into events (id, tenant_id, environment, type, data, created_at) values (?, ?, ?, ?, ?, ?)';

/**
 * Writes an event row and its webhook deliveries; call it inside the transaction that makes the change it reports
 * (outbox): the change, the event and the deliveries commit together or not at all.
 */
export function recordEvent(
  tx: Tx,
  e: { tenantId: string; environment: Environment; type: EventType; data: Record<string, unknown>; now: Date },
): string {
  const id = newId('evt', e.now.getTime());
  const createdAt = e.now.toISOString();
  statement(tx, INSERT_EVENT).run(id, e.tenantId, e.environment, e.type, JSON.stringify(e.data), createdAt);
  fanOut(tx, { id, tenantId: e.tenantId, environment: e.environment, type: e.type, data: e.data, createdAt }, e.now);
  return id;
}
