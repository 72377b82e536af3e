import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { EMAIL_STATUSES } from './cfdi-emails.ts';
import { ENVIRONMENTS } from './columns.ts';
import { retenciones } from './retenciones.ts';
import { tenants } from './tenants.ts';

/**
 * One row per sending of a retención by email (POST /retenciones/{id}/email), written with its job: `queued` until the
 * SMTP server accepts it (`sent`) or refuses it for good (`failed`), as cfdi_emails. A retención is born stamped, so
 * every sending has its job at once.
 */
export const retencionEmails = sqliteTable(
  'retencion_emails',
  {
    id: text('id').primaryKey(),
    retencionId: text('retencion_id')
      .notNull()
      .references(() => retenciones.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    recipients: text('recipients', { mode: 'json' }).notNull().$type<string[]>(),
    status: text('status', { enum: EMAIL_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** The SMTP server's last reply (its code and text), or why no server was reached. */
    lastResponse: text('last_response'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    sentAt: text('sent_at'),
  },
  (t) => [index('retencion_emails_retencion_idx').on(t.retencionId, t.id)],
);
