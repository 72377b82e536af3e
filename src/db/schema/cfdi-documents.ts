import { blob, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { cfdis } from './cfdis.ts';
import { tenants } from './tenants.ts';

/** The XML exactly as stamped (bytes), apart from the row so list scans stay small. */
export const cfdiDocuments = sqliteTable('cfdi_documents', {
  cfdiId: text('cfdi_id')
    .primaryKey()
    .references(() => cfdis.id, { onDelete: 'cascade' }),
  tenantId: text('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  xml: blob('xml', { mode: 'buffer' }).notNull(),
});
