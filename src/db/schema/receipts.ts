import type { TicketTax } from '../../cfdi/global-invoice.ts';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ENVIRONMENTS, now } from './columns.ts';
import { cfdis } from './cfdis.ts';
import { tenants } from './tenants.ts';

export const RECEIPT_STATUSES = ['open', 'invoiced', 'cancelled'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

/**
 * A sale to the public (ticket): its conceptos as sent and the amounts an invoice of them carries. `open` until its
 * customer invoices it (self-invoicing), a global invoice takes it (`invoiced`, `cfdi_id` names the CFDI either
 * way), or the tenant cancels it. The self-invoice key is never stored: only its hash, to find the receipt by it.
 */
export const receipts = sqliteTable(
  'receipts',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    folio: text('folio').notNull(),
    status: text('status', { enum: RECEIPT_STATUSES }).notNull(),
    /** When the sale happened, the issuer's local time (as a CFDI's Fecha). */
    fecha: text('fecha').notNull(),
    formaPago: text('forma_pago').notNull(),
    conceptos: text('conceptos', { mode: 'json' }).notNull().$type<unknown[]>(),
    subtotal: text('subtotal').notNull(),
    descuento: text('descuento'),
    total: text('total').notNull(),
    taxes: text('taxes', { mode: 'json' }).notNull().$type<TicketTax[]>(),
    /** SHA-256 of the self-invoice key (hex). */
    keyHash: text('key_hash').notNull(),
    expiresAt: text('expires_at').notNull(),
    cfdiId: text('cfdi_id').references(() => cfdis.id),
    invoicedBy: text('invoiced_by', { enum: ['self', 'global'] }),
    invoicedAt: text('invoiced_at'),
    cancelledAt: text('cancelled_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('receipts_folio_unique').on(t.tenantId, t.environment, t.folio),
    uniqueIndex('receipts_key_unique').on(t.keyHash),
    index('receipts_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('receipts_period_idx').on(t.tenantId, t.environment, t.status, t.fecha),
    index('receipts_cfdi_idx').on(t.cfdiId),
  ],
);

/**
 * Per tenant and environment: the next automatic receipt folio, and the global invoice the service issues by itself
 * at the end of each period (`auto_global_periodicidad`, c_Periodicidad; null: never), with the last period it covered.
 */
export const receiptSettings = sqliteTable(
  'receipt_settings',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    nextFolio: integer('next_folio').notNull().default(1),
    autoGlobalPeriodicidad: text('auto_global_periodicidad'),
    /** The last day (issuer's local date) an automatic global invoice covered. */
    autoGlobalThrough: text('auto_global_through'),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [uniqueIndex('receipt_settings_unique').on(t.tenantId, t.environment)],
);
