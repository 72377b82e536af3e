import { sql } from 'drizzle-orm';
import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { CFDI_STATUSES } from './cfdis.ts';
import { ENVIRONMENTS, now } from './columns.ts';
import { tenants } from './tenants.ts';

/** A stored amount: the exact decimal as text, printed as a JSON number on the wire. */
type Amount = string;

/** The response body fields that are not columns, fixed when the retención is issued and stamped. */
export interface RetencionSummary {
  emisor: { rfc: string; nombre: string; regimen_fiscal: string };
  receptor: { nacionalidad: 'Nacional' | 'Extranjero'; rfc?: string; nombre: string; curp?: string; domicilio_fiscal?: string; num_reg_id_trib?: string };
  desc_retenc?: string;
  totales: { monto_tot_grav: Amount; monto_tot_exent: Amount };
  impuestos_retenidos: { impuesto_ret?: string; base_ret?: Amount; monto_ret: Amount; tipo_pago_ret: string }[];
  /** The complements the document carries, by SAT's element name (`plataformasTecnologicas:ServiciosPlataformasTecnologicas`). */
  complementos: string[];
  /** The TFD's values, absent while it waits for a live PAC's stamp (en_cola) or never got one (fallido). */
  sello_sat?: string;
  certificado_sat?: string;
  cadena_original_sat?: string;
  /** Its cancellation at SAT, written with the move to cancelado (src/invoices/retenciones/lifecycle.ts). */
  cancelacion?: { motivo: string; folio_sustitucion: string | null; cancelled_at: string };
}

/**
 * One row per CFDI de Retenciones e información de pagos 2.0 (a document of its own, not a CFDI tipo): what lists and
 * filters need. Its status takes the CFDI's values and moves only through src/invoices/retenciones/lifecycle.ts.
 */
export const retenciones = sqliteTable(
  'retenciones',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    uuid: text('uuid'),
    status: text('status', { enum: CFDI_STATUSES }).notNull(),
    /** The series its folio came from (the tenant's series, shared with CFDIs) and that folio; FolioInt is the two joined. */
    serie: text('serie').notNull(),
    folio: integer('folio').notNull(),
    folioInt: text('folio_int').notNull(),
    cveRetenc: text('cve_retenc').notNull(),
    /** Null for a receptor Extranjero, who has no RFC. */
    receptorRfc: text('receptor_rfc'),
    receptorNombre: text('receptor_nombre').notNull(),
    receptorNumRegIdTrib: text('receptor_num_reg_id_trib'),
    mesIni: integer('mes_ini').notNull(),
    mesFin: integer('mes_fin').notNull(),
    ejercicio: integer('ejercicio').notNull(),
    montoTotOperacion: text('monto_tot_operacion').notNull(),
    montoTotRet: text('monto_tot_ret').notNull(),
    /** FechaExp: local time of LugarExpRetenc, as the document carries it. */
    fechaExp: text('fecha_exp').notNull(),
    fechaTimbrado: text('fecha_timbrado'),
    /** The provider that stamped it (`sandbox` in test mode). */
    pac: text('pac'),
    /** Why it could not be stamped (fallido): the PAC's refusal, or the last error when its job gave up. */
    failureReason: text('failure_reason'),
    summary: text('summary', { mode: 'json' }).notNull().$type<RetencionSummary>(),
    /**
     * The item's idempotency_key when POST /retenciones/batch issued it (per tenant and environment, kept with the row),
     * and the SHA-256 of the item it was sent with: a retried item answers `duplicate`, the key with another item `invalid`.
     */
    batchKey: text('batch_key'),
    batchHash: text('batch_hash'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('retenciones_uuid_unique').on(t.uuid),
    uniqueIndex('retenciones_folio_unique').on(t.tenantId, t.environment, t.serie, t.folio),
    uniqueIndex('retenciones_batch_key_unique').on(t.tenantId, t.environment, t.batchKey),
    index('retenciones_tenant_idx').on(t.tenantId, t.environment, t.id),
    index('retenciones_tenant_receptor_idx').on(t.tenantId, t.environment, t.receptorRfc, t.id),
    index('retenciones_tenant_clave_idx').on(t.tenantId, t.environment, t.cveRetenc, t.id),
    index('retenciones_tenant_ejercicio_idx').on(t.tenantId, t.environment, t.ejercicio, t.id),
    index('retenciones_tenant_status_idx').on(t.tenantId, t.environment, t.status, t.id).where(sql`status <> 'vigente'`),
  ],
);

/** The XML exactly as stamped (bytes), apart from the row so list scans stay small (as cfdi_documents). */
export const retencionDocuments = sqliteTable('retencion_documents', {
  retencionId: text('retencion_id')
    .primaryKey()
    .references(() => retenciones.id, { onDelete: 'cascade' }),
  tenantId: text('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  xml: blob('xml', { mode: 'buffer' }).notNull(),
});
