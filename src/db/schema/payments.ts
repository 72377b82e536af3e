import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { cfdis } from './cfdis.ts';
import { ENVIRONMENTS } from './columns.ts';

/**
 * One row per document a Pago (tipo P) pays: the instalment and the balance it moved, written in the transaction
 * that records the Pago. An invoice's outstanding balance is its total minus the payments of Pagos that still stand
 * (not fallido, not cancelado), so cancelling a Pago gives the balance back with no bookkeeping.
 */
export const cfdiPaymentDocuments = sqliteTable(
  'cfdi_payment_documents',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The Pago. */
    cfdiId: text('cfdi_id')
      .notNull()
      .references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    /** The paid document (IdDocumento), upper case. */
    relatedUuid: text('related_uuid').notNull(),
    /** The paid invoice when it was issued here (null for a document issued elsewhere). */
    paidCfdiId: text('paid_cfdi_id'),
    /** When the Pago stopped standing (fallido or cancelado): its instalment number is free again. */
    releasedAt: text('released_at'),
    numParcialidad: integer('num_parcialidad').notNull(),
    moneda: text('moneda').notNull(),
    impSaldoAnt: text('imp_saldo_ant').notNull(),
    impPagado: text('imp_pagado').notNull(),
    impSaldoInsoluto: text('imp_saldo_insoluto').notNull(),
  },
  (t) => [
    index('cfdi_payment_documents_related_idx').on(t.tenantId, t.environment, t.relatedUuid),
    index('cfdi_payment_documents_cfdi_idx').on(t.cfdiId),
    // The backstop for two Pagos racing for one invoice: a standing instalment number is taken once.
    uniqueIndex('cfdi_payment_documents_instalment_unique').on(t.tenantId, t.environment, t.paidCfdiId, t.numParcialidad).where(sql`released_at is null`),
  ],
);
