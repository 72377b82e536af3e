import { z } from '@hono/zod-openapi';
import {
  EFOS_69B_STATES,
  RECEIVED_SAT_STATUSES,
  RECEIVED_SOURCES,
  RECEIVED_VALIDATIONS,
  RECONCILIATION_STATES,
  type receivedCfdis,
} from '../../db/schema/index.ts';
import { PaginationQuery } from '../../lib/schemas.ts';

const ReasonSchema = z
  .object({
    check: z.string().openapi({ description: 'The check that failed (see ReceivedCfdi.checks), or `duplicate`', example: 'sello' }),
    detail: z.string().optional().openapi({ example: 'Sello does not verify over the cadena original with the certificate' }),
  })
  .openapi('ReceivedCfdiReason');

const IntakeOutcomeSchema = z
  .object({
    file: z.string().openapi({ description: 'The file name (a ZIP entry as `package.zip/entry.xml`)', example: 'factura-proveedor.xml' }),
    result: z.enum(['created', 'duplicate', 'invalid']).openapi({
      description:
        "`created`: stored (validated, or not_validated: a CFDI 3.3, or SAT's certificate repository unreachable); `invalid`: stored too, naming the failed checks; `duplicate`: its UUID is stored already for the tenant in this environment, nothing written (`id` is the stored one)",
    }),
    id: z.string().optional().openapi({ example: 'rcv_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    uuid: z.string().optional().openapi({ example: '5FB2822E-396D-4725-8521-CDC4BDD20CCF' }),
    reasons: z.array(ReasonSchema),
  })
  .openapi('ReceivedCfdiIntakeOutcome');

export const IntakeResponseSchema = z.object({ data: z.array(IntakeOutcomeSchema) }).openapi('ReceivedCfdiIntake');

const CheckSchema = z
  .object({ name: z.string().openapi({ example: 'tfd_sello_sat' }), ok: z.boolean(), detail: z.string().optional() })
  .openapi('ReceivedCfdiCheck');

const fields = {
  id: z.string().openapi({ example: 'rcv_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
  uuid: z.string().nullable().openapi({ description: 'null: the document has no readable TimbreFiscalDigital' }),
  version: z.string().openapi({ description: '`4.0`, `3.3` or `unknown`', example: '4.0' }),
  validation: z.enum(RECEIVED_VALIDATIONS),
  emisor_rfc: z.string().nullable().openapi({ example: 'EKU9003173C9' }),
  emisor_nombre: z.string().nullable().openapi({ example: 'ESCUELA KEMPER URGATE' }),
  receptor_rfc: z.string().nullable().openapi({ example: 'ICV060329BY0' }),
  fecha: z.string().nullable().openapi({ description: 'As written in the document (local time of LugarExpedicion)', example: '2026-11-20T10:15:00' }),
  tipo: z.string().nullable().openapi({ description: 'TipoDeComprobante', example: 'I' }),
  metodo_pago: z.string().nullable().openapi({ example: 'PUE' }),
  forma_pago: z.string().nullable().openapi({ example: '03' }),
  moneda: z.string().nullable().openapi({ example: 'MXN' }),
  total: z.string().nullable().openapi({ description: 'The exact decimal as written in the document', example: '1160.00' }),
  serie: z.string().nullable(),
  folio: z.string().nullable(),
  source: z.enum(RECEIVED_SOURCES),
  sat_download_id: z.string().nullable(),
  sat_status: z.enum(RECEIVED_SAT_STATUSES).nullable().openapi({ description: "SAT's status; null until it is asked" }),
  efos_69b: z.enum(EFOS_69B_STATES).nullable().openapi({ description: "The emisor's state in SAT's Lista 69-B; null: not listed (or not checked yet)" }),
  reconciliation: z.enum(RECONCILIATION_STATES).nullable().openapi({ description: 'Only for a PPD Ingreso: how far the received REPs pay it' }),
  created_at: z.string().openapi({ format: 'date-time' }),
};

export const ReceivedCfdiListItemSchema = z.object(fields).openapi('ReceivedCfdiListItem');

export const ReceivedCfdiSchema = z
  .object({
    ...fields,
    checks: z.array(CheckSchema).openapi({ description: 'Every check that ran, in order, each ok or not with why' }),
    sha256: z.string().openapi({ description: 'Hex SHA-256 of the stored bytes (GET /received-cfdis/{id}/xml)' }),
    es_cancelable: z.string().nullable(),
    estatus_cancelacion: z.string().nullable(),
    validacion_efos: z.string().nullable(),
    sat_checked_at: z.string().nullable(),
    amount_paid: z.string().nullable(),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ReceivedCfdi');

const dateParam = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$/, 'must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ss')
    .optional()
    .openapi({ param: { name, in: 'query' }, description: 'On the document fecha (local time of issue), inclusive' });
const query = <T extends z.ZodType>(name: string, schema: T, description?: string) =>
  schema.optional().openapi({ param: { name, in: 'query' }, ...(description ? { description } : {}) });

export const ReceivedListQuery = PaginationQuery.extend({
  emisor_rfc: query('emisor_rfc', z.string().max(13)),
  desde: dateParam('desde'),
  hasta: dateParam('hasta'),
  tipo: query('tipo', z.enum(['I', 'E', 'P', 'N', 'T'])),
  metodo_pago: query('metodo_pago', z.enum(['PUE', 'PPD'])),
  validation: query('validation', z.enum(RECEIVED_VALIDATIONS)),
  sat_status: query('sat_status', z.enum(RECEIVED_SAT_STATUSES)),
  efos_69b: query('efos_69b', z.enum(EFOS_69B_STATES)),
  efos: query(
    'efos',
    z.enum(['true', 'false'], { message: 'must be true or false' }),
    'true: only those whose emisor is in the Lista 69-B in any state; false: only those not listed',
  ),
  reconciliation: query('reconciliation', z.enum(RECONCILIATION_STATES)),
});

type Row = typeof receivedCfdis.$inferSelect;
export type ReceivedListRow = Omit<
  Row,
  | 'xml'
  | 'checks'
  | 'sha256'
  | 'esCancelable'
  | 'estatusCancelacion'
  | 'validacionEfos'
  | 'satCheckedAt'
  | 'amountPaid'
  | 'updatedAt'
  | 'tenantId'
  | 'environment'
  | 'receptorRfc'
> & { receptorRfc: string | null };

export const toReceivedListItem = (r: ReceivedListRow): z.infer<typeof ReceivedCfdiListItemSchema> => ({
  id: r.id,
  uuid: r.uuid,
  version: r.version,
  validation: r.validation,
  emisor_rfc: r.emisorRfc,
  emisor_nombre: r.emisorNombre,
  receptor_rfc: r.receptorRfc,
  fecha: r.fecha,
  tipo: r.tipo,
  metodo_pago: r.metodoPago,
  forma_pago: r.formaPago,
  moneda: r.moneda,
  total: r.total,
  serie: r.serie,
  folio: r.folio,
  source: r.source,
  sat_download_id: r.satDownloadId,
  sat_status: r.satStatus,
  efos_69b: r.efos69b,
  reconciliation: r.reconciliation,
  created_at: r.createdAt,
});

export const toReceivedCfdi = (r: Omit<Row, 'xml' | 'tenantId' | 'environment'>): z.infer<typeof ReceivedCfdiSchema> => ({
  ...toReceivedListItem(r),
  checks: r.checks,
  sha256: r.sha256,
  es_cancelable: r.esCancelable,
  estatus_cancelacion: r.estatusCancelacion,
  validacion_efos: r.validacionEfos,
  sat_checked_at: r.satCheckedAt,
  amount_paid: r.amountPaid,
  updated_at: r.updatedAt,
});
