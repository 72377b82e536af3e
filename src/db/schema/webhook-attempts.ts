import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tenants } from './tenants.ts';
import { webhookDeliveries } from './webhook-deliveries.ts';

/** Every HTTP attempt of a delivery, for the history. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    responseBody: text('response_body'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    at: text('at').notNull(),
  },
  (t) => [index('attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);
