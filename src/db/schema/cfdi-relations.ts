import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS } from './columns.ts';
import { cfdis } from './cfdis.ts';

/**
 * CfdiRelacionados of each issued CFDI (this one → related UUID): what makes a CFDI "No cancelable" while a
 * vigente document relates to it, and how a substitute (TipoRelacion 04) is checked.
 */
export const cfdiRelations = sqliteTable(
  'cfdi_relations',
  {
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    tipoRelacion: text('tipo_relacion').notNull(),
    relatedUuid: text('related_uuid').notNull(),
  },
  (t) => [
    uniqueIndex('cfdi_relations_unique').on(t.cfdiId, t.tipoRelacion, t.relatedUuid),
    index('cfdi_relations_related_idx').on(t.tenantId, t.environment, t.relatedUuid),
  ],
);
