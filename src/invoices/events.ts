import type { Db } from '../db/client.ts';
import { events, type Environment } from '../db/schema/index.ts';
import { newId } from '../lib/ids.ts';

export const EVENT_TYPES = ['cfdi.timbrado', 'cfdi.cancelado', 'cfdi.fallido', 'cfdi.encolado', 'csd.por_vencer', 'csd.vencido'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

type Tx = Pick<Db, 'insert'>;

/** Writes an event row; call it inside the transaction that makes the change it reports (outbox). */
export function recordEvent(
  tx: Tx,
  e: { tenantId: string; environment: Environment; type: EventType; data: Record<string, unknown>; now: Date },
): string {
  const id = newId('evt', e.now.getTime());
  tx.insert(events).values({ id, tenantId: e.tenantId, environment: e.environment, type: e.type, data: e.data, createdAt: e.now.toISOString() }).run();
  return id;
}
