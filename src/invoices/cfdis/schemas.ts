import { z } from '@hono/zod-openapi';
import type { ComprobanteInput } from '../../cfdi/input.ts';
import { UUID } from '../../cfdi/patterns.ts';
import { Amount, code, type Fits, num, SEND_AS_STRING, str, Tax, withTextCheck } from './fields.ts';
import {
  CONCEPTO_COMPLEMENT_REQUESTS,
  CONCEPTO_COMPLEMENT_RESPONSES,
  checkComplementTipos,
  conceptoComplementsToWire,
  COMPLEMENT_REQUESTS,
  COMPLEMENT_RESPONSES,
  complementsToWire,
} from './complements/index.ts';
import { CFDI_STATUSES, type cfdis } from '../../db/schema/index.ts';
import { ExternalId, IdempotencyKeyHeader, Metadata, PaginationQuery } from '../../lib/schemas.ts';
import { SANDBOX_SCENARIOS } from '../../pac/types.ts';
import { EMAIL_RULES, EmailRecipients } from '../emails/schemas.ts';

/** A path parameter naming a CFDI by its folio fiscal (UUID, any case) or its cfdi_ id. */
export const CFDI_REF_PATTERN = new RegExp(`^(?:${UUID.source.slice(1, -1)}|cfdi_[0-9a-zA-Z]{1,60})$`);

export const ReceptorSchema = z
  .object({
    rfc: z.string().trim().toUpperCase().openapi({
      example: 'ICV060329BY0',
      description: 'Its YYMMDD must be a date (else 400, CFDI40143); a wrong check digit is stamped with a warning',
    }),
    nombre: str(300).openapi({ example: 'INMOBILIARIA CVA' }),
    regimen_fiscal: z.string().openapi({ example: '601' }),
    domicilio_fiscal: z.string().openapi({ example: '33826' }),
    uso_cfdi: z.string().openapi({ example: 'G03' }),
    residencia_fiscal: z.string().optional(),
    num_reg_id_trib: str(40).optional(),
  })
  .strict()
  .openapi('Receptor');

export const ConceptoSchema = z
  .object({
    clave_prod_serv: code(/^\d{8}$/, 'must be an 8-digit c_ClaveProdServ key', '84111506'),
    no_identificacion: str(100).optional(),
    cantidad: Amount.openapi({ example: '1' }),
    clave_unidad: z.string().min(1).max(3).openapi({ example: 'E48' }),
    unidad: str(20).optional(),
    descripcion: str(1000).openapi({ example: 'Servicio de facturación' }),
    valor_unitario: Amount.openapi({ example: '1000.00' }),
    descuento: Amount.optional(),
    objeto_imp: code(/^\d{2}$/, 'must be a 2-digit c_ObjetoImp key', '02')
      .optional()
      .openapi({
        description:
          'c_ObjetoImp. Default 02 when impuestos are sent. Without impuestos it is required on an Ingreso or Egreso (01 no objeto de impuesto, ' +
          '03 no obligado al desglose, 04 no causa impuesto, …: 400 CFDI40170 when missing), so a forgotten tax block is not stamped as 01; ' +
          "a Traslado's goods default to 01",
      }),
    impuestos: z
      .object({ traslados: z.array(Tax).max(10).optional(), retenciones: z.array(Tax).max(10).optional() })
      .strict()
      .optional(),
    a_cuenta_terceros: z
      .object({ rfc: z.string().trim().toUpperCase(), nombre: str(254), regimen_fiscal: z.string(), domicilio_fiscal: z.string() })
      .strict()
      .optional(),
    ...CONCEPTO_COMPLEMENT_REQUESTS,
  })
  .strict()
  .openapi('Concepto');

/** InformacionGlobal's Año, as a number or a string (checked against the Fecha by CFDI40136). */
const Anio = z
  .union([z.number(), z.string()])
  .transform((v, ctx) => {
    if (typeof v === 'number' && !Number.isInteger(v)) ctx.addIssue({ code: 'custom', message: 'must be a year such as 2026' });
    else if (typeof v === 'number' && !Number.isSafeInteger(v)) ctx.addIssue({ code: 'custom', message: SEND_AS_STRING });
    return String(v);
  })
  .openapi({ type: ['integer', 'string'], example: 2026 });

const CfdiRequestFields = z
  .object({
    tipo: z.enum(['I', 'E', 'P', 'N', 'T'], { message: 'must be one of I, E, P, N, T' }),
    serie: str(25).optional().openapi({ description: 'A series created with POST /series; default: the default series' }),
    fecha: z
      .string()
      .regex(
        /^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/,
        'must be YYYY-MM-DDThh:mm:ss (local time of the place of issue, no zone)',
      )
      .optional()
      .openapi({ description: "Default: now, in the time zone of the issuer's postal code" }),
    forma_pago: code(/^\d{2}$/, 'must be a 2-digit c_FormaPago key', '03')
      .optional()
      .openapi({
        description:
          'Default 99 (Por definir). With metodo_pago PUE, 99 (sent or defaulted) is stamped with a warning: a PUE invoice should carry the form used',
      }),
    metodo_pago: z.string().optional().openapi({ example: 'PUE', description: 'PUE (default) or PPD' }),
    moneda: z.string().optional().openapi({ example: 'MXN', description: 'c_Moneda; default MXN' }),
    tipo_cambio: Amount.optional(),
    condiciones_de_pago: str(1000).optional(),
    exportacion: z.string().optional().openapi({ example: '01', description: 'c_Exportacion; default 01' }),
    receptor: ReceptorSchema.optional(),
    receptor_id: z.string().max(64).optional().openapi({ description: 'A client id (cli_…) instead of receptor' }),
    informacion_global: z.object({ periodicidad: z.string(), meses: z.string(), anio: Anio }).strict().optional(),
    cfdi_relacionados: z
      .array(
        z
          .object({
            tipo_relacion: z.string(),
            uuids: z.array(z.string().regex(UUID, 'must be a UUID')).min(1).max(1000),
          })
          .strict(),
      )
      .max(10)
      .optional(),
    conceptos: z
      .array(ConceptoSchema)
      .min(1, 'must have at least one concepto')
      .max(5000)
      .optional()
      .openapi({ description: 'Required for I, E and T; a Pago (P) and a Nómina (N) carry a fixed concepto and take none' }),
    ...COMPLEMENT_REQUESTS,
    external_id: ExternalId.optional().openapi({
      description:
        'Your own reference (e.g. your order number), at most 255 printable characters: unique per tenant and environment (a second invoice with it is 409, naming the first), kept by a failed invoice, found with GET /cfdis?external_id=',
    }),
    metadata: Metadata.optional().openapi({
      description: "Your own key → value pairs, echoed in this invoice's webhook events; not merged with a receptor_id client's metadata, never in the XML",
    }),
    email_to: EmailRecipients.optional().openapi({
      description:
        'Email the XML and PDF to these addresses once stamped, also when stamped later from the queue (as POST /cfdis/{id}/email; GET /cfdis/{id}/emails ' +
        'shows the sending). 400 naming email_to when the server has no SMTP configured (SMTP_URL), and nothing is issued. ' +
        EMAIL_RULES,
    }),
  })
  .strict()
  .superRefine((r, ctx) => {
    const fixed = r.tipo === 'P' || r.tipo === 'N';
    if (!fixed && !r.conceptos) ctx.addIssue({ code: 'custom', path: ['conceptos'], message: `is required for tipo ${r.tipo}` });
    if (fixed && r.conceptos)
      ctx.addIssue({
        code: 'custom',
        path: ['conceptos'],
        message: `must not be sent for tipo ${r.tipo}: its concepto is fixed by SAT`,
        params: { rule: r.tipo === 'P' ? 'CRP20111' : 'NOM13' },
      });
    checkComplementTipos(r, ctx);
    if (!r.receptor && !r.receptor_id) ctx.addIssue({ code: 'custom', path: ['receptor'], message: 'is required (or send receptor_id)' });
    if (r.receptor && r.receptor_id) ctx.addIssue({ code: 'custom', path: ['receptor_id'], message: 'send either receptor or receptor_id, not both' });
  });

export const CfdiRequestSchema = withTextCheck(CfdiRequestFields, ['external_id', 'metadata', 'email_to']).openapi('CfdiRequest', {
  description:
    'Every string but external_id, metadata and email_to (which never reach the XML) may hold only characters XML 1.0 allows (not U+FFFE, U+FFFF, unpaired surrogates or control characters, C1 U+0080–U+009F included) and no "|"; ' +
    'no invisible bidi control, zero-width or blank-looking character (U+202A–U+202E, U+2066–U+2069, U+200B–U+200F, U+2060–U+2064, U+061C, U+FEFF, ' +
    'the soft hyphen U+00AD, the line separators U+2028/U+2029, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0), each named in the 400; ' +
    'tab, line feed and carriage return are allowed only in conceptos[].descripcion, where SAT collapses whitespace.',
});

// What each schema yields must fit what the engine takes (src/cfdi/input.ts); the compiler checks it here (the
// conceptos and their taxes inside CfdiRequest).
export type CfdiRequest = Fits<z.output<typeof CfdiRequestSchema>, ComprobanteInput>;

const WARNINGS =
  'Non-blocking remarks, each opening with the field it concerns, e.g. a receptor RFC whose check digit is wrong: it is stamped ' +
  "(some older RFCs fail the digit) but a PAC refuses an RFC that is not in SAT's list (CFDI40143)";
const Num = z.number();

const PAC_DESCRIPTION =
  "The stamping provider (PAC) that stamped it: `sandbox` in test mode, the live PAC's name (`sw`, `finkok`) in live mode; null while it is not stamped (en_cola, fallido). Filter the list with GET /cfdis?pac=";

export const CfdiSchema = z
  .object({
    id: z.string().openapi({ example: 'cfdi_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    uuid: z.string().nullable().openapi({ description: 'Folio fiscal; null while queued' }),
    tipo: z.string(),
    status: z.enum(CFDI_STATUSES),
    serie: z.string().nullable(),
    folio: z.number().int().nullable(),
    fecha: z.string().openapi({ description: 'Fecha of the CFDI: local time of the place of issue' }),
    emisor: z.object({ rfc: z.string(), nombre: z.string(), regimen_fiscal: z.string() }),
    receptor: z.object({ rfc: z.string(), nombre: z.string() }),
    conceptos: z.array(
      z.object({ descripcion: z.string(), cantidad: Num, valor_unitario: Num, importe: Num, descuento: Num.optional(), ...CONCEPTO_COMPLEMENT_RESPONSES }),
    ),
    moneda: z.string(),
    subtotal: Num,
    descuento: Num.optional(),
    total_impuestos_trasladados: Num.optional(),
    total_impuestos_retenidos: Num.optional(),
    total: Num,
    forma_pago: z.string().optional(),
    metodo_pago: z.string().optional(),
    ...COMPLEMENT_RESPONSES,
    saldo_insoluto: Num.optional().openapi({ description: 'GET of a PPD Ingreso: what is still owed after the Pagos that stand (not cancelled or failed)' }),
    parcialidades: z.number().int().optional().openapi({ description: 'GET of a PPD Ingreso: how many instalments the standing Pagos cover' }),
    receipt_id: z
      .string()
      .nullable()
      .optional()
      .openapi({
        description:
          'GET /cfdis/{id}: the receipt (ticket) this CFDI invoiced to its customer (POST /receipts/{id}/invoice or the portal); null for any other CFDI, ' +
          'a global invoice too, which covers many: list them with GET /receipts?cfdi_id=',
        example: 'rcpt_01jd2m3k4n5p6q7r8s9t0v1w2x',
      }),
    fecha_timbrado: z.string().nullable().openapi({ format: 'date-time', description: 'Stamping time, ISO 8601 UTC' }),
    pac: z.string().nullable().openapi({ description: PAC_DESCRIPTION, example: 'sandbox' }),
    sello_sat: z.string().nullable(),
    certificado_sat: z.string().nullable().openapi({ description: 'NoCertificadoSAT' }),
    cadena_original_sat: z.string().nullable().openapi({ description: 'Cadena original of the TFD' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    warnings: z.array(z.string()).optional().openapi({ description: WARNINGS }),
    external_id: z.string().nullable().openapi({ description: 'Your reference, as sent on POST /cfdis (null when none was)', example: 'SO-10482' }),
    metadata: Metadata.openapi({ description: 'Your key → value pairs, as sent on POST /cfdis ({} when none were)' }),
  })
  .openapi('Cfdi');

/** The 201 of POST /cfdis: stamped, so the fiscal fields are present (typed clients may rely on `uuid` being a string). */
export const StampedCfdiSchema = CfdiSchema.extend({
  uuid: z.string().openapi({ description: 'Folio fiscal', example: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7' }),
  fecha_timbrado: z.string().openapi({ format: 'date-time', description: 'Stamping time, ISO 8601 UTC' }),
  sello_sat: z.string(),
  certificado_sat: z.string().openapi({ description: 'NoCertificadoSAT' }),
  cadena_original_sat: z.string().openapi({ description: 'Cadena original of the TFD' }),
}).openapi('CfdiStamped');

export const QueuedCfdiSchema = z
  .object({
    id: z.string(),
    uuid: z.null(),
    tipo: z.string(),
    status: z.literal('en_cola'),
    external_id: z.string().nullable(),
    metadata: Metadata,
    mensaje: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('CfdiQueued');

export const CfdiListItemSchema = z
  .object({
    id: z.string(),
    uuid: z.string().nullable(),
    tipo: z.string(),
    status: z.enum(CFDI_STATUSES),
    serie: z.string().nullable(),
    folio: z.number().int().nullable(),
    fecha: z.string(),
    receptor: z.object({ rfc: z.string(), nombre: z.string() }),
    moneda: z.string(),
    subtotal: Num,
    total: Num,
    external_id: z.string().nullable(),
    metadata: Metadata,
    pac: z.string().nullable().openapi({ description: PAC_DESCRIPTION, example: 'sandbox' }),
    created_at: z.string(),
  })
  .openapi('CfdiListItem');

export const CfdiValidationSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.object({ field: z.string(), issue: z.string(), rule: z.string().optional() })),
    warnings: z.array(z.string()).openapi({ description: WARNINGS }),
  })
  .openapi('CfdiValidation');

const dateParam = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$/, 'must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ss')
    .optional()
    .openapi({ param: { name, in: 'query' }, description: 'On the CFDI fecha (local time of issue)' });

const amountParam = (name: string, bound: string) =>
  z
    .string()
    .regex(/^\d{1,18}(\.\d{1,6})?$/, 'must be a decimal amount such as 1160.00')
    .optional()
    .openapi({ param: { name, in: 'query' }, description: `Total ${bound} this amount (inclusive, exact decimal, in the CFDI's moneda)`, example: '1000.00' });

export const CfdiListQuery = PaginationQuery.extend({
  status: z
    .enum(CFDI_STATUSES)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  tipo: z
    .enum(['I', 'E', 'P', 'N', 'T'])
    .optional()
    .openapi({ param: { name: 'tipo', in: 'query' } }),
  receptor_rfc: z
    .string()
    .max(13)
    .optional()
    .openapi({ param: { name: 'receptor_rfc', in: 'query' } }),
  serie: z
    .string()
    .max(25)
    .optional()
    .openapi({ param: { name: 'serie', in: 'query' } }),
  receptor_nombre: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(254)
    .optional()
    .openapi({
      param: { name: 'receptor_nombre', in: 'query' },
      description: "Part of the receptor's name, ignoring case (of A–Z; accents count); % and _ are plain characters",
      example: 'COMERCIO',
    }),
  uuid: z
    .string()
    .regex(/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/, 'must be a UUID (folio fiscal)')
    .optional()
    .openapi({ param: { name: 'uuid', in: 'query' }, description: 'Exactly this folio fiscal, any case' }),
  folio: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, 'must be a positive integer of at most 15 digits')
    .optional()
    .openapi({ param: { name: 'folio', in: 'query' }, description: 'Exactly this folio (with `serie`, of that serie)', example: '42' }),
  total_min: amountParam('total_min', 'at least'),
  total_max: amountParam('total_max', 'at most'),
  desde: dateParam('desde'),
  hasta: dateParam('hasta'),
  external_id: ExternalId.optional().openapi({
    param: { name: 'external_id', in: 'query' },
    description: 'Exactly this external_id (your reference sent on POST /cfdis)',
  }),
  pac: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, 'must be a PAC name: lowercase letters, digits, _ or -, at most 32 (sandbox, sw, finkok)')
    .optional()
    .openapi({ param: { name: 'pac', in: 'query' }, description: 'Only CFDIs this PAC stamped (`sandbox` in test mode)', example: 'sandbox' }),
});

/** GET /cfdis/export.zip: the list's filters, without its paging. */
export const CfdiExportQuery = CfdiListQuery.omit({ limit: true, cursor: true });

export const CfdiIssueHeaders = z.object({
  'x-sandbox-scenario': z
    .string()
    .optional()
    .openapi({ enum: [...SANDBOX_SCENARIOS], description: 'Test mode only: forces the provider outcome (ignored in live mode)' }),
  'idempotency-key': IdempotencyKeyHeader,
});

export const CfdiUuidParams = z.object({
  uuid: z
    .string()
    .regex(CFDI_REF_PATTERN, 'must be a UUID (or a cfdi_ id)')
    .openapi({
      param: { name: 'uuid', in: 'path' },
      example: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7',
      description: 'The folio fiscal (UUID), any case; the cfdi_ id is accepted too, so a queued invoice gets a 404 that says it is not stamped yet',
    }),
});

export type CfdiRow = typeof cfdis.$inferSelect;
type CfdiListRow = Pick<
  CfdiRow,
  | 'id'
  | 'uuid'
  | 'tipo'
  | 'status'
  | 'serie'
  | 'folio'
  | 'fecha'
  | 'receptorRfc'
  | 'receptorNombre'
  | 'moneda'
  | 'subtotal'
  | 'total'
  | 'externalId'
  | 'metadata'
  | 'pac'
  | 'createdAt'
>;

/** The spec's CFDI response (201 and GET /cfdis/:id). Amounts are JSON numbers printed from exact decimals. */
export function toCfdi(r: CfdiRow): z.infer<typeof CfdiSchema> {
  const s = r.summary;
  return {
    id: r.id,
    uuid: r.uuid,
    tipo: r.tipo,
    status: r.status,
    serie: r.serie,
    folio: r.folio,
    fecha: r.fecha,
    emisor: s.emisor,
    receptor: s.receptor,
    conceptos: s.conceptos.map((c) => ({
      descripcion: c.descripcion,
      cantidad: Number(c.cantidad),
      valor_unitario: Number(c.valor_unitario),
      importe: Number(c.importe),
      ...(c.descuento ? { descuento: Number(c.descuento) } : {}),
      ...conceptoComplementsToWire(c),
    })),
    moneda: r.moneda,
    subtotal: Number(r.subtotal),
    descuento: num(s.descuento),
    total_impuestos_trasladados: num(s.total_impuestos_trasladados),
    total_impuestos_retenidos: num(s.total_impuestos_retenidos),
    total: Number(r.total),
    forma_pago: s.forma_pago,
    metodo_pago: s.metodo_pago,
    ...complementsToWire(s),
    fecha_timbrado: r.fechaTimbrado,
    pac: r.pac,
    sello_sat: s.sello_sat ?? null,
    certificado_sat: s.certificado_sat ?? null,
    cadena_original_sat: s.cadena_original_sat ?? null,
    external_id: r.externalId,
    metadata: r.metadata,
    created_at: r.createdAt,
  };
}

export const toCfdiListItem = (r: CfdiListRow): z.infer<typeof CfdiListItemSchema> => ({
  id: r.id,
  uuid: r.uuid,
  tipo: r.tipo,
  status: r.status,
  serie: r.serie,
  folio: r.folio,
  fecha: r.fecha,
  receptor: { rfc: r.receptorRfc, nombre: r.receptorNombre },
  moneda: r.moneda,
  subtotal: Number(r.subtotal),
  total: Number(r.total),
  external_id: r.externalId,
  metadata: r.metadata,
  pac: r.pac,
  created_at: r.createdAt,
});
