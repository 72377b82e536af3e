import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { now } from './columns.ts';
import { tenants } from './tenants.ts';
import { webhooks } from './webhooks.ts';

export const DELIVERY_STATES = ['pendiente', 'entregado', 'fallido'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One per event and subscribed webhook. `body` is the exact bytes sent on every attempt (same signature input). */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    event: text('event').notNull(),
    body: text('body').notNull(),
    state: text('state', { enum: DELIVERY_STATES }).notNull().default('pendiente'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastResponseBody: text('last_response_body'),
    lastError: text('last_error'),
    nextAttemptAt: text('next_attempt_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    deliveredAt: text('delivered_at'),
  },
  (t) => [index('deliveries_webhook_idx').on(t.webhookId, t.createdAt), index('deliveries_pending_idx').on(t.webhookId, t.state)],
);
