import type { Db } from '../db/client.ts';
import { statement } from '../db/prepared.ts';
import type { Environment } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';

export const EVENT_TYPES = ['cfdi.timbrado', 'cfdi.cancelado', 'cfdi.fallido', 'cfdi.encolado', 'csd.por_vencer', 'csd.vencido'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

type Tx = Pick<Db, 'insert'>;

const INSERT_EVENT = 'insert into events (id, tenant_id, environment, type, data, created_at) values (?, ?, ?, ?, ?, ?)';

/** Writes an event row; call it inside the transaction that makes the change it reports (outbox). */
export function recordEvent(
  tx: Tx,
  e: { tenantId: string; environment: Environment; type: EventType; data: Record<string, unknown>; now: Date },
): string {
  const id = newId('evt', e.now.getTime());
  statement(tx, INSERT_EVENT).run(id, e.tenantId, e.environment, e.type, JSON.stringify(e.data), e.now.toISOString());
  return id;
}
