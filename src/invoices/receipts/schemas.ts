import { z } from '@hono/zod-openapi';
import type { ConceptoInput, ReceptorInput } from '../../cfdi/input.ts';
import { RECEIPT_STATUSES, type receipts } from '../../db/schema/index.ts';
import { PaginationQuery } from '../../lib/schemas.ts';
import { ConceptoSchema, ReceptorSchema } from '../cfdis/schemas.ts';
import { code, type Fits, str, withTextCheck } from '../cfdis/fields.ts';
import { EMAIL_RULES, EmailRecipients } from '../emails/schemas.ts';

const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
  .refine((s) => {
    const at = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(s);
  }, 'is not a calendar date');

/** A receipt id in a path: rcpt_ and its ULID (anything else is 400 before any lookup). */
export const ReceiptParams = z.object({
  id: z
    .string()
    .regex(/^rcpt_[0-9a-z]{1,60}$/, 'must be a receipt id (rcpt_…)')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'rcpt_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
});

export const ReceiptCreateSchema = withTextCheck(
  z
    .object({
      conceptos: z.array(ConceptoSchema).min(1, 'must have at least one concepto').max(1000).openapi({
        description: "What was sold, in a CFDI's concepto shape: checked with the same SAT rules, and amounts computed the same way",
      }),
      forma_pago: code(/^\d{2}$/, 'must be a 2-digit c_FormaPago key', '01').openapi({
        description: 'How the ticket was paid (c_FormaPago; not 99): its invoice, or the global invoice, carries it',
      }),
      folio: str(40)
        .regex(/^[0-9A-Za-z-]+$/, 'may hold only letters, digits and hyphens')
        .optional()
        .openapi({ example: 'T-000123', description: "The ticket's number, unique per tenant and environment; default: the next of a counter" }),
    })
    .strict(),
  [],
).openapi('ReceiptCreate');
export type ReceiptCreate = z.output<typeof ReceiptCreateSchema> & { conceptos: Fits<z.output<typeof ConceptoSchema>, ConceptoInput>[] };

const TaxSchema = z.object({
  kind: z.enum(['traslado', 'retencion']),
  impuesto: z.string().openapi({ example: '002' }),
  tipo_factor: z.enum(['Tasa', 'Cuota', 'Exento']),
  tasa_o_cuota: z.string().optional().openapi({ example: '0.160000' }),
  base: z.number().openapi({ example: 100 }),
  importe: z.number().optional().openapi({ example: 16 }),
});

export const ReceiptSchema = z
  .object({
    id: z.string().openapi({ example: 'rcpt_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    folio: z.string().openapi({ example: 'T-000123' }),
    fecha: z.string().openapi({ example: '2026-11-24T12:30:00', description: "When it was created, the issuer's local time (as a CFDI's Fecha)" }),
    forma_pago: z.string(),
    moneda: z.literal('MXN'),
    conceptos: z.array(z.unknown()).openapi({
      description: 'As sent, with their amounts (cantidad, valor_unitario, descuento, base, importe) as JSON numbers; SAT keys stay strings',
    }),
    subtotal: z.number().openapi({ example: 100 }),
    descuento: z.number().nullable(),
    impuestos: z
      .array(TaxSchema)
      .openapi({ description: 'Its taxes summed per impuesto, tipo factor and tasa (what its concepto in a global invoice carries)' }),
    total: z.number().openapi({ example: 116, description: 'Exactly what an invoice of these conceptos totals' }),
    status: z.enum(RECEIPT_STATUSES).openapi({
      description: 'open: not invoiced yet; invoiced: by its customer (invoiced_by self) or in a global invoice (global), cfdi_id names it; cancelled',
    }),
    self_invoice_url: z
      .string()
      .nullable()
      .openapi({
        example: 'https://facturas.example.com/portal/ten_01jd2m3k4n5p6q7r8s9t0v1w2x?clave=K3M9Q2W7ZD4R8T1V6X0B5N7P2A',
        description:
          "The customer's link to invoice it in the self-invoicing portal (print it, or its QR, on the ticket): the server's PUBLIC_BASE_URL + " +
          "`/portal/{tenant_id}?clave=…`; null while the server has no PUBLIC_BASE_URL (it is never taken from the request's Host header, " +
          'which a client can forge; the start-up log warns). Its key (`clave`) is 130 random-looking bits derived from your MASTER_KEY; ' +
          'whoever has it can invoice the ticket, so print it only on the ticket',
      }),
    expires_at: z.string().openapi({
      format: 'date-time',
      description: "Until when its customer may invoice it: the end of its month in the issuer's time zone; later it goes only into a global invoice",
    }),
    cfdi_id: z.string().nullable().openapi({ description: 'The CFDI that invoiced it' }),
    invoiced_by: z.enum(['self', 'global']).nullable(),
    invoiced_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Receipt');

export const ReceiptListQuery = PaginationQuery.extend({
  status: z
    .enum(RECEIPT_STATUSES)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  desde: Day.optional().openapi({ param: { name: 'desde', in: 'query' }, description: "From this day (issuer's local date), included" }),
  hasta: Day.optional().openapi({ param: { name: 'hasta', in: 'query' }, description: 'Up to this day, included' }),
  cfdi_id: z
    .string()
    .regex(/^cfdi_[0-9a-z]{1,60}$/, 'must be a CFDI id (cfdi_…)')
    .optional()
    .openapi({
      param: { name: 'cfdi_id', in: 'query' },
      description: 'The receipts this CFDI invoiced: the one of a customer’s invoice, or every receipt a global invoice covers',
    }),
});

// The receptor reaches the XML: the same character check as a CFDI request's.
export const ReceiptInvoiceSchema = withTextCheck(
  z
    .object({
      receptor: ReceptorSchema,
      email_to: EmailRecipients.optional().openapi({
        description: `Email the XML and PDF here once stamped (400 naming email_to on a server without SMTP configured, and nothing is issued). ${EMAIL_RULES}`,
      }),
    })
    .strict(),
  ['email_to'],
).openapi('ReceiptInvoice');
export type ReceiptInvoice = { receptor: Fits<z.output<typeof ReceptorSchema>, ReceptorInput>; email_to?: string[] };

const Periodicidad = z.enum(['01', '02', '03', '04', '05'], { message: 'must be a c_Periodicidad key: 01, 02, 03, 04 or 05' }).openapi({
  description: 'c_Periodicidad: 01 diario, 02 semanal, 03 quincenal, 04 mensual, 05 bimestral (issuers in régimen 621 only)',
});

export const GlobalInvoiceSchema = z
  .object({
    periodicidad: Periodicidad,
    desde: Day.optional().openapi({ description: "First day of the period (issuer's local date)" }),
    hasta: Day.optional().openapi({ description: 'Last day, included: in the same month as desde (the same bimester for 05)' }),
    meses: z.string().optional().openapi({ example: '11', description: 'Instead of desde–hasta, for 04 and 05: c_Meses (01–12, or 13–18 for a bimester)' }),
    anio: z.string().optional().openapi({ example: '2026' }),
    email_to: EmailRecipients.optional(),
    replaces: z
      .string()
      .regex(/^cfdi_[0-9a-z]{26}$/, 'must be a cfdi_ id')
      .optional()
      .openapi({
        example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x',
        description:
          "The id of a global invoice this one replaces. Vigente: SAT's substitution — the new one carries CfdiRelacionados TipoRelacion 04 with its " +
          'UUID and takes over exactly its receipts (the period must cover them; open receipts go into a global invoice of their own); then cancel the ' +
          'old one with motivo 01 and folio_sustitucion = the new UUID, which gives back no receipt. If the replacement fails to stamp, the receipts go ' +
          'back to the old one. Cancelado: its receipts were given back (open) when it was cancelled, and the new one takes the open receipts of the ' +
          "period, without a relation. Kept in the new CFDI's metadata as `replaces`.",
      }),
  })
  .strict()
  .openapi('GlobalInvoiceRequest');
export type GlobalInvoiceRequest = z.output<typeof GlobalInvoiceSchema>;

export const ReceiptSettingsSchema = z
  .object({
    auto_global_invoice: Periodicidad.nullable().openapi({
      description:
        'Issue the global invoice by itself at the end of each period of this periodicity (weeks run Monday–Sunday and fortnights 1–15 and 16–end, ' +
        "each cut at the month's end), shortly after midnight in the issuer's time zone; null: never",
    }),
    auto_global_invoice_through: z.string().nullable().openapi({ description: 'The last day an automatic global invoice covered' }),
  })
  .openapi('ReceiptSettings');

export const ReceiptSettingsPatchSchema = z.object({ auto_global_invoice: Periodicidad.nullable() }).strict().openapi('ReceiptSettingsPatch');

export type ReceiptRow = typeof receipts.$inferSelect;

/** A concepto's amounts, wherever they sit in it (its taxes, its partes): stored as exact decimal strings, answered as numbers. */
const AMOUNT_KEYS = new Set(['cantidad', 'valor_unitario', 'descuento', 'base', 'importe']);

function withNumbers(value: unknown, key?: string): unknown {
  if (typeof value === 'string' && key !== undefined && AMOUNT_KEYS.has(key)) return Number(value);
  if (Array.isArray(value)) return value.map((v) => withNumbers(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNumbers(v, k)]));
  return value;
}

export const toReceipt = (r: ReceiptRow, selfInvoiceUrl: string | null): z.infer<typeof ReceiptSchema> => ({
  id: r.id,
  folio: r.folio,
  fecha: r.fecha,
  forma_pago: r.formaPago,
  moneda: 'MXN',
  conceptos: r.conceptos.map((c) => withNumbers(c)),
  subtotal: Number(r.subtotal),
  descuento: r.descuento === null ? null : Number(r.descuento),
  impuestos: r.taxes.map(({ importe, ...t }) => ({ ...t, base: Number(t.base), ...(importe !== undefined ? { importe: Number(importe) } : {}) })),
  total: Number(r.total),
  status: r.status,
  self_invoice_url: selfInvoiceUrl,
  expires_at: r.expiresAt,
  cfdi_id: r.cfdiId,
  invoiced_by: r.invoicedBy,
  invoiced_at: r.invoicedAt,
  cancelled_at: r.cancelledAt,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
