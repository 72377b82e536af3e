import { blob, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { cfdis } from './cfdis.ts';
import { tenants } from './tenants.ts';

/**
 * A stamped CFDI's PDF as last rendered, shared by every instance: GET /cfdis/{uuid}/pdf, the portal's download and
 * the emailed attachment render it once. `fingerprint` hashes all the bytes depend on (the XML, the cancellation and
 * sandbox marks, the tenant's branding, the service's version); a request whose fingerprint differs renders anew.
 */
export const cfdiPdfs = sqliteTable('cfdi_pdfs', {
  cfdiId: text('cfdi_id')
    .primaryKey()
    .references(() => cfdis.id, { onDelete: 'cascade' }),
  tenantId: text('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  fingerprint: text('fingerprint').notNull(),
  pdf: blob('pdf', { mode: 'buffer' }).notNull(),
  renderedAt: text('rendered_at').notNull(),
});
