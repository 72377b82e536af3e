import { z } from '@hono/zod-openapi';
import type { RetencionInput } from '../../cfdi/retenciones/input.ts';
import { MOTIVOS } from '../../cfdi/cancellation.ts';
import { UUID } from '../../cfdi/patterns.ts';
import { CFDI_STATUSES, EMAIL_STATUSES, type retenciones } from '../../db/schema/index.ts';
import { IdempotencyKeyHeader, PaginationQuery } from '../../lib/schemas.ts';
import { EmailRecipients } from '../emails/schemas.ts';
import { Amount, code, type Fits, num, str } from '../cfdis/fields.ts';

/**
 * The wire of /retenciones. The request's format only is checked here (shapes, digits, amounts as exact decimals);
 * every SAT rule is the engine's (src/cfdi/retenciones/prepare.ts), so a key outside its catalog is answered 400 with
 * the field and the rule code of SAT's Matriz de errores de Retenciones 2.0.
 */

const twoDigits = (what: string, example: string) => code(/^\d{2}$/, `must be two digits (${what})`, example);

const ReceptorRetencion = z
  .object({
    nacionalidad: z.enum(['Nacional', 'Extranjero'], { message: 'must be Nacional or Extranjero' }),
    nombre: str(300).openapi({ example: 'KARLA FUENTE NOLASCO' }),
    rfc: z.string().trim().toUpperCase().max(13, 'must be at most 13 characters').optional().openapi({
      example: 'FUNK671228PH6',
      description: 'Nacional: RfcR (required). Extranjero: not sent',
    }),
    curp: z.string().trim().toUpperCase().max(18, 'must be at most 18 characters').optional().openapi({ description: 'Nacional, persona física: CurpR' }),
    domicilio_fiscal: z
      .string()
      .max(5, 'must be a 5-digit postal code')
      .optional()
      .openapi({ example: '01000', description: 'Nacional: DomicilioFiscalR (c_CodigoPostal)' }),
    num_reg_id_trib: str(40).optional().openapi({ description: 'Extranjero: NumRegIdTribR, its tax id abroad' }),
  })
  .strict();

const ImpRetenido = z
  .object({
    impuesto_ret: z.string().max(3).optional().openapi({ example: '001', description: 'c_Impuesto: 001 ISR, 002 IVA, 003 IEPS' }),
    base_ret: Amount.optional(),
    tasa: Amount.optional().openapi({ example: '0.10', description: 'The rate withheld as a fraction: monto_ret = base_ret × tasa, two decimals' }),
    monto_ret: Amount.optional().openapi({ description: 'Computed from base_ret × tasa when not sent; checked against it when both are' }),
    tipo_pago_ret: z.string().max(2).openapi({ example: '01', description: 'c_TipoPagoRet 01–04' }),
  })
  .strict();

const Servicio = z
  .object({
    forma_pago_serv: z.string().max(2).openapi({ example: '03' }),
    tipo_de_serv: z.string().max(2).openapi({ example: '01' }),
    sub_tip_serv: z.string().max(2).optional(),
    rfc_tercero_autorizado: z.string().trim().toUpperCase().max(13).optional(),
    fecha_serv: z.string().max(10).openapi({ example: '2026-10-05', description: 'YYYY-MM-DD within the periodo' }),
    precio_serv_sin_iva: Amount,
    impuestos_trasladados: z
      .object({ impuesto: z.string().max(3).optional(), tasa_cuota: Amount, base: Amount.optional() })
      .strict()
      .optional(),
    contribucion_gubernamental: z
      .object({ imp_contrib: Amount, entidad_donde_paga_la_contribucion: z.string().max(2) })
      .strict()
      .optional(),
    comision_del_servicio: z.object({ base: Amount.optional(), porcentaje: Amount.optional(), importe: Amount.optional() }).strict().optional(),
  })
  .strict();

const PlataformasTecnologicas = z
  .object({ periodicidad: z.string().max(2).openapi({ example: '04' }), servicios: z.array(Servicio).min(1, 'must list at least one service').max(10000) })
  .strict()
  .openapi({ description: 'Complemento de Servicios de Plataformas Tecnológicas 1.0: one line per service; every total computed' });

const Dividendos = z
  .object({
    divid_o_util: z
      .object({
        cve_tip_div_o_util: z.string().max(2),
        mont_isr_acred_ret_mexico: Amount,
        mont_isr_acred_ret_extranjero: Amount,
        mont_ret_ext_div_ext: Amount.optional(),
        tipo_soc_distr_div: z.enum(['Sociedad Nacional', 'Sociedad Extranjera'], { message: 'must be Sociedad Nacional or Sociedad Extranjera' }),
        mont_isr_acred_nal: Amount.optional(),
        mont_div_acum_nal: Amount.optional(),
        mont_div_acum_ext: Amount.optional(),
      })
      .strict()
      .optional(),
    remanente: z.object({ proporcion_rem: Amount.optional() }).strict().optional(),
  })
  .strict()
  .openapi({ description: 'Complemento de Dividendos 1.0' });

const PagosAExtranjeros = z
  .object({
    es_benef_efect_del_cobro: z.enum(['SI', 'NO'], { message: 'must be SI or NO' }),
    no_beneficiario: z
      .object({ pais_de_resid_para_efec_fisc: z.string().max(2), concepto_pago: z.string().max(1), descripcion_concepto: str(255) })
      .strict()
      .optional(),
    beneficiario: z
      .object({
        rfc: z.string().trim().toUpperCase().max(13),
        curp: z.string().trim().toUpperCase().max(18),
        nom_den_raz_soc_b: str(300),
        concepto_pago: z.string().max(1),
        descripcion_concepto: str(255),
      })
      .strict()
      .optional(),
  })
  .strict()
  .openapi({ description: 'Complemento de Pagos a extranjeros 1.0' });

export const RetencionRequestSchema = z
  .object({
    cve_retenc: twoDigits('c_CveRetenc, 01–28', '05'),
    desc_retenc: z.string().max(100, 'must be at most 100 characters').optional().openapi({ description: 'Required with cve_retenc 25 (otro tipo)' }),
    fecha_exp: z.string().max(19).optional().openapi({
      example: '2026-11-27T12:00:00',
      description: "FechaExp, YYYY-MM-DDThh:mm:ss: the issuer's local time now (its postal code's zone) when not sent",
    }),
    serie: z
      .string()
      .max(25, 'must be at most 25 characters')
      .optional()
      .openapi({
        description:
          "One of the tenant's series (GET /series), the same ones CFDIs take their folios from; default: the default series. FolioInt is the " +
          'series and its folio joined (A15), so the series name must be letters and digits. A series used by both CFDIs and retenciones numbers ' +
          'them in one sequence: create one for retenciones (POST /series, e.g. RET) to number them apart',
        example: 'A',
      }),
    cfdi_reten_relacionados: z
      .object({ tipo_relacion: twoDigits('c_TipoRelacion', '04'), uuid: z.string().regex(UUID, 'must be a UUID') })
      .strict()
      .optional()
      .openapi({ description: 'CfdiRetenRelacionados: the retención this one replaces' }),
    receptor: ReceptorRetencion,
    periodo: z
      .object({
        mes_ini: twoDigits('c_Periodo, 01–12', '11'),
        mes_fin: twoDigits('c_Periodo, 01–12', '11'),
        ejercicio: code(/^\d{4}$/, 'must be a year (c_Ejercicio)', '2026'),
      })
      .strict(),
    totales: z
      .object({
        monto_tot_operacion: Amount,
        monto_tot_grav: Amount,
        monto_tot_exent: Amount.optional().openapi({ description: 'Computed (monto_tot_operacion − monto_tot_grav) when not sent; checked when sent' }),
        monto_tot_ret: Amount.optional().openapi({ description: 'Computed (Σ impuestos_retenidos[].monto_ret) when not sent; checked when sent' }),
        utilidad_bimestral: Amount.optional(),
        isr_correspondiente: Amount.optional(),
      })
      .strict(),
    impuestos_retenidos: z.array(ImpRetenido).max(100, 'must have at most 100 items').optional(),
    plataformas_tecnologicas: PlataformasTecnologicas.optional(),
    dividendos: Dividendos.optional(),
    pagos_a_extranjeros: PagosAExtranjeros.optional(),
    complementos_xml: z
      .array(z.string().max(200_000, 'must be at most 200,000 characters'))
      .max(10, 'must have at most 10 items')
      .optional()
      .openapi({
        description:
          "SAT's other Retenciones 2.0 complements (Arrendamiento en fideicomiso, Enajenación de acciones, Fideicomiso no empresarial, Intereses, " +
          'Intereses hipotecarios, Operaciones con derivados, Premios, Sector financiero, Planes de retiro 1.1), each the XML of its element with ' +
          "SAT's prefix, checked against its SAT schema",
      }),
  })
  .strict()
  .openapi('RetencionRequest');

// What the schema yields must fit what the engine takes (src/cfdi/retenciones/input.ts); the compiler checks it here.
export type RetencionRequest = Fits<z.output<typeof RetencionRequestSchema>, RetencionInput>;

const Num = z.number();
const Periodo = z.object({ mes_ini: z.string(), mes_fin: z.string(), ejercicio: z.string() });

export const RetencionSchema = z
  .object({
    id: z.string().openapi({ example: 'ret_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    uuid: z.string().nullable().openapi({ description: 'Folio fiscal; null while not stamped', example: '6F35D3B5-3651-5370-BC2C-14CDBE384CD7' }),
    status: z.enum(CFDI_STATUSES).openapi({
      description:
        '`vigente`: stamped; `en_cola` (live mode): sealed, waiting for a PAC to stamp it; `fallido`: no PAC stamped it (see failure_reason); ' +
        '`cancelado`: cancelled at SAT',
    }),
    serie: z.string(),
    folio: z.number().int(),
    folio_int: z.string().openapi({ description: 'FolioInt: the series and its folio joined', example: 'A15' }),
    fecha_exp: z.string().openapi({ description: 'FechaExp: local time of the place of issue' }),
    cve_retenc: z.string(),
    desc_retenc: z.string().optional(),
    emisor: z.object({ rfc: z.string(), nombre: z.string(), regimen_fiscal: z.string() }),
    receptor: z.object({
      nacionalidad: z.enum(['Nacional', 'Extranjero']),
      rfc: z.string().optional(),
      nombre: z.string(),
      curp: z.string().optional(),
      domicilio_fiscal: z.string().optional(),
      num_reg_id_trib: z.string().optional(),
    }),
    periodo: Periodo,
    totales: z.object({ monto_tot_operacion: Num, monto_tot_grav: Num, monto_tot_exent: Num, monto_tot_ret: Num }),
    impuestos_retenidos: z.array(z.object({ impuesto_ret: z.string().optional(), base_ret: Num.optional(), monto_ret: Num, tipo_pago_ret: z.string() })),
    complementos: z.array(z.string()).openapi({ description: "The complements the document carries, by SAT's element name" }),
    fecha_timbrado: z.string().nullable().openapi({ format: 'date-time', description: 'Stamping time, ISO 8601 UTC' }),
    pac: z.string().nullable().openapi({ description: 'The provider that stamped it: `sandbox` in test mode', example: 'sandbox' }),
    failure_reason: z.string().nullable().openapi({
      description: "Why it was not stamped (status fallido): the PAC's refusal with its code, or the last error when its stamping gave up; else null",
      example: null,
    }),
    sello_sat: z.string().nullable(),
    certificado_sat: z.string().nullable().openapi({ description: 'NoCertificadoSAT' }),
    cadena_original_sat: z.string().nullable().openapi({ description: 'Cadena original of the TFD' }),
    cancelacion: z
      .object({
        motivo: z.string().openapi({ description: 'c_MotivoCancelacion', example: '02' }),
        folio_sustitucion: z.string().nullable().openapi({ description: 'Motivo 01: the UUID of the retención that replaces it' }),
        cancelled_at: z.string().openapi({ format: 'date-time' }),
      })
      .nullable()
      .openapi({ description: 'Its cancellation (POST /retenciones/{id}/cancel); null while it is not cancelled' }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Retencion');

export const RetencionListItemSchema = z
  .object({
    id: z.string(),
    uuid: z.string().nullable(),
    status: z.enum(CFDI_STATUSES),
    folio_int: z.string(),
    fecha_exp: z.string(),
    cve_retenc: z.string(),
    receptor: z.object({ rfc: z.string().nullable(), nombre: z.string(), num_reg_id_trib: z.string().nullable() }),
    periodo: Periodo,
    monto_tot_operacion: Num,
    monto_tot_ret: Num,
    pac: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('RetencionListItem');

export const RetencionValidationSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.object({ field: z.string(), issue: z.string(), rule: z.string().optional() })),
  })
  .openapi('RetencionValidation');

const dateParam = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$/, 'must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ss')
    .optional()
    .openapi({ param: { name, in: 'query' }, description: 'On fecha_exp (local time of issue)' });

export const RetencionListQuery = PaginationQuery.extend({
  status: z
    .enum(CFDI_STATUSES)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  receptor_rfc: z
    .string()
    .max(13)
    .optional()
    .openapi({ param: { name: 'receptor_rfc', in: 'query' }, description: 'A receptor Nacional by RFC (any case)' }),
  cve_retenc: z
    .string()
    .regex(/^\d{2}$/, 'must be two digits (c_CveRetenc)')
    .optional()
    .openapi({ param: { name: 'cve_retenc', in: 'query' }, example: '05' }),
  ejercicio: z.coerce
    .number()
    .int('must be a year')
    .min(2000, 'must be a year from 2000')
    .max(2100, 'must be a year up to 2100')
    .optional()
    .openapi({ param: { name: 'ejercicio', in: 'query' }, example: 2026, description: 'Periodo.Ejercicio' }),
  desde: dateParam('desde'),
  hasta: dateParam('hasta'),
});

export const RetencionCancelBodySchema = z
  .object({
    motivo: z.enum(MOTIVOS, { message: 'must be one of 01, 02, 03, 04 (c_MotivoCancelacion)' }).openapi({
      description:
        '01 errors with a replacement (needs folio_sustitucion), 02 errors without one, 03 the operation did not happen, 04 nominative operation in a global invoice',
    }),
    folio_sustitucion: z.string().regex(UUID, 'must be a UUID').optional().openapi({
      description:
        'Motivo 01 only: the UUID of the vigente retención of this tenant that replaces this one (issued with cfdi_reten_relacionados, tipo_relacion 04, to it)',
    }),
  })
  .strict()
  .openapi('RetencionCancelRequest');
export type RetencionCancelBody = z.infer<typeof RetencionCancelBodySchema>;

export const RetencionSatStatusSchema = z
  .object({
    uuid: z.string(),
    consulted_at: z.string().openapi({ format: 'date-time' }),
    estado: z.enum(['Vigente', 'Cancelado', 'No Encontrado']).openapi({ description: 'Where SAT has the retención' }),
    estatus_cancelacion: z.string().nullable().openapi({
      description: "The sandbox: Cancelado sin aceptación once cancelled. Null otherwise, and in live mode (SAT's page does not show it)",
      example: null,
    }),
    fecha_cancelacion: z.string().nullable().openapi({ format: 'date-time', description: 'When SAT cancelled it; null unless Cancelado' }),
    fuente: z
      .enum(['sandbox', 'sat'])
      .openapi({ description: "Who answered: `sandbox`, the sandbox's simulated SAT (test mode); `sat`, SAT's verification page (live mode)" }),
  })
  .openapi('RetencionSatStatus');

export const RetencionEmailRequestSchema = z
  .object({ to: EmailRecipients.openapi({ description: 'The addresses (a retención has no client record to default to)' }) })
  .strict()
  .openapi('RetencionEmailRequest');
export type RetencionEmailRequest = z.infer<typeof RetencionEmailRequestSchema>;

export const RetencionEmailSchema = z
  .object({
    id: z.string().openapi({ example: 'eml_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    retencion_id: z.string(),
    to: z.array(z.string()).openapi({ description: 'The recipients, in one message' }),
    status: z.enum(EMAIL_STATUSES).openapi({
      description:
        'queued: waiting to be sent, retried with backoff while the SMTP server answers 4xx or cannot be reached; sent: the SMTP server accepted it; ' +
        'failed: refused for good (5xx) or out of attempts',
    }),
    attempts: z.number().int(),
    last_response: z.string().nullable().openapi({ description: "The SMTP server's last answer, or why no server was reached" }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    sent_at: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('RetencionEmail');

export const RetencionIssueHeaders = z.object({ 'idempotency-key': IdempotencyKeyHeader });

/** A path parameter naming a retención by its ret_ id or its folio fiscal (UUID, any case). */
export const RetencionRefParams = z.object({
  id: z
    .string()
    .regex(new RegExp(`^(?:${UUID.source.slice(1, -1)}|ret_[0-9a-zA-Z]{1,60})$`), 'must be a ret_ id or a UUID')
    .openapi({
      param: { name: 'id', in: 'path' },
      example: 'ret_01jd2m3k4n5p6q7r8s9t0v1w2x',
      description: 'The ret_ id, or the folio fiscal (UUID, any case)',
    }),
});

export type RetencionRow = typeof retenciones.$inferSelect;
type RetencionListRow = Pick<
  RetencionRow,
  | 'id'
  | 'uuid'
  | 'status'
  | 'folioInt'
  | 'fechaExp'
  | 'cveRetenc'
  | 'receptorRfc'
  | 'receptorNombre'
  | 'receptorNumRegIdTrib'
  | 'mesIni'
  | 'mesFin'
  | 'ejercicio'
  | 'montoTotOperacion'
  | 'montoTotRet'
  | 'pac'
  | 'createdAt'
>;

const month = (m: number) => String(m).padStart(2, '0');
const periodoOf = (r: Pick<RetencionRow, 'mesIni' | 'mesFin' | 'ejercicio'>) => ({
  mes_ini: month(r.mesIni),
  mes_fin: month(r.mesFin),
  ejercicio: String(r.ejercicio),
});

export const toRetencion = (r: RetencionRow): z.infer<typeof RetencionSchema> => {
  const s = r.summary;
  return {
    id: r.id,
    uuid: r.uuid,
    status: r.status,
    serie: r.serie,
    folio: r.folio,
    folio_int: r.folioInt,
    fecha_exp: r.fechaExp,
    cve_retenc: r.cveRetenc,
    ...(s.desc_retenc !== undefined && { desc_retenc: s.desc_retenc }),
    emisor: s.emisor,
    receptor: s.receptor,
    periodo: periodoOf(r),
    totales: {
      monto_tot_operacion: Number(r.montoTotOperacion),
      monto_tot_grav: Number(s.totales.monto_tot_grav),
      monto_tot_exent: Number(s.totales.monto_tot_exent),
      monto_tot_ret: Number(r.montoTotRet),
    },
    impuestos_retenidos: s.impuestos_retenidos.map((i) => ({
      ...(i.impuesto_ret !== undefined && { impuesto_ret: i.impuesto_ret }),
      ...(i.base_ret !== undefined && { base_ret: num(i.base_ret) }),
      monto_ret: Number(i.monto_ret),
      tipo_pago_ret: i.tipo_pago_ret,
    })),
    complementos: s.complementos,
    fecha_timbrado: r.fechaTimbrado,
    pac: r.pac,
    failure_reason: r.failureReason,
    sello_sat: s.sello_sat ?? null,
    certificado_sat: s.certificado_sat ?? null,
    cadena_original_sat: s.cadena_original_sat ?? null,
    cancelacion: s.cancelacion ?? null,
    created_at: r.createdAt,
  };
};

export const toRetencionListItem = (r: RetencionListRow): z.infer<typeof RetencionListItemSchema> => ({
  id: r.id,
  uuid: r.uuid,
  status: r.status,
  folio_int: r.folioInt,
  fecha_exp: r.fechaExp,
  cve_retenc: r.cveRetenc,
  receptor: { rfc: r.receptorRfc, nombre: r.receptorNombre, num_reg_id_trib: r.receptorNumRegIdTrib },
  periodo: periodoOf(r),
  monto_tot_operacion: Number(r.montoTotOperacion),
  monto_tot_ret: Number(r.montoTotRet),
  pac: r.pac,
  created_at: r.createdAt,
});

/** At most this many items per POST /retenciones/batch (docs/decisions.md, "Retenciones: the batch"). */
export const BATCH_MAX_ITEMS = 1000;

// A new object of the same fields (not `extend`): the document would make it RetencionRequest, which admits no other property, and more.
export const RetencionBatchItemSchema = z
  .object({
    ...RetencionRequestSchema.shape,
    idempotency_key: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1–255 visible ASCII characters')
      .openapi({
        description:
          "This item's key, unique in the tenant and environment (e.g. the seller and the month): an item sent again with its key is answered `duplicate` " +
          'with the retención it issued, whenever it is retried; the key with another item is `invalid`',
        example: 'seller-4821-2026-10',
      }),
  })
  .strict()
  .openapi('RetencionBatchItem');

// An item that fails its schema does not fail the request: `catch` keeps zod's issues for that item's answer. The
// OpenAPI document describes the item itself (zod-to-openapi has no rendering of `catch`).
const BatchItem = RetencionBatchItemSchema.catch((ctx): z.output<typeof RetencionBatchItemSchema> => ({ malformed: ctx.error.issues }) as never).openapi({
  type: 'object',
  allOf: [{ $ref: '#/components/schemas/RetencionBatchItem' }],
});

export const RetencionBatchRequestSchema = z
  .object({
    items: z
      .array(BatchItem)
      .min(1, 'must have at least 1 item')
      .max(BATCH_MAX_ITEMS, `must have at most ${BATCH_MAX_ITEMS} items`)
      .openapi({ description: `1 to ${BATCH_MAX_ITEMS} retenciones, each a POST /retenciones request with its idempotency_key` }),
  })
  .strict()
  .openapi('RetencionBatchRequest');

export const RetencionBatchResultSchema = z
  .object({
    results: z
      .array(
        z.object({
          index: z.number().int().openapi({ description: "The item's position in `items`, from 0" }),
          status: z.enum(['created', 'queued', 'duplicate', 'invalid']).openapi({
            description:
              '`created`: issued and stamped now (test mode); `queued`: issued, sealed and queued for a live PAC (status en_cola, uuid null: ' +
              "its stamp follows, as for POST /retenciones' 202); `duplicate`: issued before with this idempotency_key (id and uuid are that " +
              "retención's, uuid null while it is queued); `invalid`: refused, nothing stored (errors as POST /retenciones answers them, fields " +
              'relative to the item)',
          }),
          id: z.string().optional(),
          uuid: z.string().nullable().optional(),
          folio_int: z.string().optional(),
          errors: z.array(z.object({ field: z.string(), issue: z.string(), rule: z.string().optional() })).optional(),
        }),
      )
      .openapi({ description: 'One per item, in the order of `items`' }),
    created: z.number().int(),
    queued: z.number().int(),
    duplicate: z.number().int(),
    invalid: z.number().int(),
  })
  .openapi('RetencionBatchResult');
