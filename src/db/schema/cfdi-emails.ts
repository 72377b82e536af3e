import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';
import { cfdis } from './cfdis.ts';
import { tenants } from './tenants.ts';

export const EMAIL_STATUSES = ['queued', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * One row per sending of a CFDI by email (POST /cfdis/{id}/email, or email_to on POST /cfdis), written before its job:
 * `queued` until the SMTP server accepts it (`sent`) or refuses it for good (`failed`). A CFDI not yet stamped keeps
 * its rows queued without a job; the stamp queues them.
 */
export const cfdiEmails = sqliteTable(
  'cfdi_emails',
  {
    id: text('id').primaryKey(),
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
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
  (t) => [index('cfdi_emails_cfdi_idx').on(t.cfdiId, t.id)],
);
