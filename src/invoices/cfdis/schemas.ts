import { z } from '@hono/zod-openapi';

/** A path parameter naming a CFDI by its folio fiscal (UUID, any case) or its cfdi_ id. */
export const CFDI_REF_PATTERN = /^(?:[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}|cfdi_[0-9a-zA-Z]{1,60})$/;

/** Money and quantities: a JSON number or a decimal string, non-negative, at most 6 decimals. */
export const Amount = z
  .union([z.number(), z.string()], { message: 'must be a number or a decimal string' })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'x') : v.trim();
    const plain = /e/i.test(text) ? Number(text).toFixed(12).replace(/\.?0+$/, '') : text;
    if (!/^\d{1,18}(\.\d{1,6})?$/.test(plain)) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative decimal with at most 18 integer digits and 6 decimals' });
      return z.NEVER;
    }
    return plain;
  })
  .openapi({ type: 'string', example: '1500.00', description: 'Number or decimal string; at most 6 decimals' });

const str = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.isWellFormed() && !/[\u0000-\u001f\u007f|]/.test(s), 'must not contain "|" or control characters');
const code = (pattern: RegExp, message: string, example: string) => z.string().regex(pattern, message).openapi({ example });

const Tax = z
  .object({
    impuesto: code(/^00[1-3]$/, 'must be 001 (ISR), 002 (IVA) or 003 (IEPS)', '002'),
    tipo_factor: z.enum(['Tasa', 'Cuota', 'Exento'], { message: 'must be Tasa, Cuota or Exento' }),
    tasa_o_cuota: Amount.optional().openapi({ example: '0.160000' }),
    base: Amount.optional().openapi({ description: 'Computed (importe − descuento) when omitted; checked when sent' }),
    importe: Amount.optional().openapi({ description: 'Computed (base × tasa_o_cuota) when omitted; checked against SAT tolerance when sent' }),
  })
  .strict();

export const ReceptorSchema = z
  .object({
    rfc: z.string().trim().toUpperCase().openapi({ example: 'ICV060329BY0' }),
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
    objeto_imp: code(/^\d{2}$/, 'must be a 2-digit c_ObjetoImp key', '02').optional().openapi({ description: 'Default: 02 when impuestos are sent, else 01' }),
    impuestos: z.object({ traslados: z.array(Tax).max(10).optional(), retenciones: z.array(Tax).max(10).optional() }).strict().optional(),
    a_cuenta_terceros: z
      .object({ rfc: z.string().trim().toUpperCase(), nombre: str(254), regimen_fiscal: z.string(), domicilio_fiscal: z.string() })
      .strict()
      .optional(),
  })
  .strict()
  .openapi('Concepto');

export const CfdiRequestSchema = z
  .object({
    tipo: z.enum(['I', 'E', 'P', 'N', 'T'], { message: 'must be one of I, E, P, N, T' }),
    serie: str(25).optional().openapi({ description: 'A series created with POST /series; default: the default series' }),
    fecha: z
      .string()
      .regex(/^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, 'must be YYYY-MM-DDThh:mm:ss (local time of the place of issue, no zone)')
      .optional()
      .openapi({ description: 'Default: now, in the time zone of the issuer\'s postal code' }),
    forma_pago: code(/^\d{2}$/, 'must be a 2-digit c_FormaPago key', '03').optional().openapi({ description: 'Default 99 (Por definir)' }),
    metodo_pago: z.string().optional().openapi({ example: 'PUE', description: 'PUE (default) or PPD' }),
    moneda: z.string().optional().openapi({ example: 'MXN', description: 'c_Moneda; default MXN' }),
    tipo_cambio: Amount.optional(),
    condiciones_de_pago: str(1000).optional(),
    exportacion: z.string().optional().openapi({ example: '01', description: 'c_Exportacion; default 01' }),
    receptor: ReceptorSchema.optional(),
    receptor_id: z.string().max(64).optional().openapi({ description: 'A client id (cli_…) instead of receptor' }),
    informacion_global: z
      .object({ periodicidad: z.string(), meses: z.string(), anio: z.union([z.number().int(), z.string()]).transform(String) })
      .strict()
      .optional(),
    cfdi_relacionados: z
      .array(
        z
          .object({
            tipo_relacion: z.string(),
            uuids: z.array(z.string().regex(/^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/, 'must be a UUID')).min(1).max(1000),
          })
          .strict(),
      )
      .max(10)
      .optional(),
    conceptos: z.array(ConceptoSchema).min(1, 'must have at least one concepto').max(5000),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (!r.receptor && !r.receptor_id) ctx.addIssue({ code: 'custom', path: ['receptor'], message: 'is required (or send receptor_id)' });
    if (r.receptor && r.receptor_id) ctx.addIssue({ code: 'custom', path: ['receptor_id'], message: 'send either receptor or receptor_id, not both' });
  })
  .openapi('CfdiRequest');

export type CfdiRequest = z.infer<typeof CfdiRequestSchema>;
export type ConceptoRequest = z.infer<typeof ConceptoSchema>;
