import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { cfdis } from './cfdis.ts';
import { ENVIRONMENTS } from './identity.ts';

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
    cfdiId: text('cfdi_id').notNull().references(() => cfdis.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    /** The paid document (IdDocumento), upper case. */
    relatedUuid: text('related_uuid').notNull(),
    numParcialidad: integer('num_parcialidad').notNull(),
    moneda: text('moneda').notNull(),
    impSaldoAnt: text('imp_saldo_ant').notNull(),
    impPagado: text('imp_pagado').notNull(),
    impSaldoInsoluto: text('imp_saldo_insoluto').notNull(),
  },
  (t) => [index('cfdi_payment_documents_related_idx').on(t.tenantId, t.environment, t.relatedUuid), index('cfdi_payment_documents_cfdi_idx').on(t.cfdiId)],
);
