import { z } from '@hono/zod-openapi';
import type { ComercioExteriorInput } from '../../../cfdi/complements/comercioexterior20/input.ts';
import { T_CURP } from '../../../cfdi/patterns.ts';
import { Amount, code, type Fits, str } from '../fields.ts';
import type { WireComplement } from './index.ts';

/**
 * The `comercio_exterior` member of POST /cfdis (tipo I or T with exportacion 02): Complemento de Comercio Exterior
 * 2.0 in snake_case. Only format checks live here (ComercioExterior20.xsd's patterns and lengths); catalog and
 * consistency rules, with SAT's codes, are in src/cfdi/complements/comercioexterior20/rules/ (docs/comercioexterior20.md).
 */

/** A decimal with at most `decimals` decimals and `digits` integer digits (the XSD's pattern): refused, never rounded. */
const decimal = (digits: number, decimals: number, example: string) =>
  Amount.refine(
    (v) => new RegExp(`^\\d{1,${digits}}(\\.\\d{1,${decimals}})?$`).test(v),
    `must have at most ${digits} integer digits and ${decimals} decimals`,
  ).openapi({
    example,
  });

const Pais = code(/^[A-Z]{3}$/, 'must be a 3-letter c_Pais key', 'USA');
const NumRegIdTrib = str(40, 6).openapi({ example: '123456789', description: "The foreign tax id, in its country's format (c_Pais' pattern)" });

const DomicilioComercioExterior = z
  .object({
    calle: str(100).openapi({ example: 'Congress Ave' }),
    numero_exterior: str(55).optional(),
    numero_interior: str(55).optional(),
    colonia: str(120).optional().openapi({ description: 'In Mexico a c_Colonia key (4 digits) of the código postal (GET /catalogos/colonias)' }),
    localidad: str(120).optional().openapi({ description: 'In Mexico a c_Localidad key of the estado' }),
    referencia: str(250).optional(),
    municipio: str(120).optional().openapi({ description: 'In Mexico a c_Municipio key of the estado' }),
    estado: str(30).openapi({ example: 'TX', description: 'c_Estado key for MEX, USA and CAN (NLE, TX, ON); free text elsewhere' }),
    pais: Pais,
    codigo_postal: str(12).openapi({ example: '78701', description: 'In Mexico a c_CodigoPostal key of the estado' }),
  })
  .strict()
  .openapi('ComercioExteriorDomicilio');

const Mercancia = z
  .object({
    no_identificacion: str(100).openapi({ example: 'SKU-A', description: "The conceptos' no_identificacion it covers" }),
    fraccion_arancelaria: code(/^\d{8}(\d{2})?$/, 'must be a c_FraccionArancelaria key (8 or 10 digits)', '0901110300')
      .optional()
      .openapi({ description: 'c_FraccionArancelaria in force (GET /catalogos/fracciones-arancelarias); required unless unidad_aduana is 99' }),
    cantidad_aduana: decimal(14, 3, '140').optional().openapi({ description: 'With unidad_aduana and valor_unitario_aduana, or none of the three' }),
    unidad_aduana: code(/^\d{2}$/, 'must be a 2-digit c_UnidadAduana key', '01')
      .optional()
      .openapi({ description: "c_UnidadAduana (GET /catalogos/unidades-aduana): the fracción's unit of measure (UMT)" }),
    valor_unitario_aduana: decimal(16, 6, '12.35').optional(),
    valor_dolares: decimal(16, 4, '1729.00').optional().openapi({
      description:
        "Computed (the conceptos' importe of this no_identificacion in dollars) when this is its only mercancía; required for each of several mercancías sharing one no_identificacion",
    }),
    descripciones_especificas: z
      .array(
        z
          .object({
            marca: str(35).openapi({ example: 'ACME' }),
            modelo: str(80).optional(),
            sub_modelo: str(50).optional(),
            numero_serie: str(40).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(100)
      .optional(),
  })
  .strict()
  .openapi('ComercioExteriorMercancia');

const ComercioExteriorRequestSchema = z
  .object({
    motivo_traslado: code(/^\d{2}$/, 'must be a 2-digit c_MotivoTraslado key', '02')
      .optional()
      .openapi({ description: 'c_MotivoTraslado (GET /catalogos/motivos-traslado): required on a Traslado (T), refused on an Ingreso' }),
    clave_de_pedimento: code(/^[A-Z0-9]{2}$/, 'must be a 2-character c_ClavePedimento key', 'A1')
      .optional()
      .openapi({ description: 'c_ClavePedimento (GET /catalogos/claves-pedimento); default A1 (definitive export)' }),
    certificado_origen: z
      .union([z.literal(0), z.literal(1)], { message: 'must be 0 or 1' })
      .optional()
      .openapi({ example: 0, description: '1 when this CFDI serves as certificate of origin; default 0' }),
    num_certificado_origen: str(40, 6).optional().openapi({ description: 'Only with certificado_origen 1' }),
    numero_exportador_confiable: str(50).optional().openapi({ description: 'Only with a receptor or destinatario in the European Union' }),
    incoterm: code(/^[A-Z]{3}$/, 'must be a 3-letter c_INCOTERM key', 'FCA')
      .optional()
      .openapi({ description: 'c_INCOTERM (GET /catalogos/incoterms)' }),
    observaciones: str(300).optional(),
    tipo_cambio_usd: decimal(18, 6, '17.2345')
      .optional()
      .openapi({ description: "Pesos per US dollar; on a CFDI in USD default: the comprobante's tipo_cambio" }),
    total_usd: decimal(16, 2, '7670.50').optional().openapi({ description: "Computed: the sum of the mercancías' valor_dolares; checked when sent" }),
    emisor: z
      .object({
        curp: code(T_CURP, 'must be an 18-character CURP (t_CURP)', 'CACX760510HDFRRN09')
          .optional()
          .openapi({ description: 'Required when the issuer is a persona física (13-character RFC); refused for a persona moral' }),
        domicilio: DomicilioComercioExterior.optional().openapi({
          description: "The issuer's fiscal address in Mexico; default: the tenant's domicilio_fiscal (PATCH /tenants/me)",
        }),
      })
      .strict()
      .optional(),
    propietario: z
      .array(z.object({ num_reg_id_trib: NumRegIdTrib, residencia_fiscal: Pais }).strict())
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'The owners of the goods: only on a Traslado with motivo_traslado 05' }),
    receptor: z
      .object({
        num_reg_id_trib: NumRegIdTrib.optional().openapi({ description: "Refused: the receptor's tax id is the comprobante's receptor.num_reg_id_trib" }),
        domicilio: DomicilioComercioExterior.optional().openapi({ description: "Required: the receptor's address" }),
      })
      .strict()
      .optional(),
    destinatario: z
      .array(
        z
          .object({
            num_reg_id_trib: NumRegIdTrib.optional(),
            nombre: str(300).optional(),
            domicilio: z.array(DomicilioComercioExterior).min(1, 'at least one domicilio is required').max(100),
          })
          .strict(),
      )
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'Where the goods go when not to the receptor (one on a Traslado)' }),
    mercancias: z
      .array(Mercancia)
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'Default: one per no_identificacion of the conceptos, in their order (then without fracción: send them for goods)' }),
  })
  .strict()
  .openapi('ComercioExterior');

export type ComercioExteriorRequest = Fits<z.output<typeof ComercioExteriorRequestSchema>, ComercioExteriorInput>;

const ComercioExteriorResponse = z
  .object({
    clave_de_pedimento: z.string().openapi({ example: 'A1' }),
    incoterm: z.string().optional().openapi({ example: 'FCA' }),
    motivo_traslado: z.string().optional(),
    tipo_cambio_usd: z.number().openapi({ example: 17.2345 }),
    total_usd: z.number().openapi({ example: 7670.5 }),
    num_mercancias: z.number().int().openapi({ example: 3 }),
  })
  .optional()
  .openapi('ComercioExteriorSummary', { description: 'Comercio Exterior 2.0, when the CFDI carries it: TotalUSD and the header keys' });

/** Comercio Exterior rides on an I or a T of exportacion 02, and exportacion 02 needs it (CFDI40122, CCE145). */
export const comercioexterior20 = {
  request: ComercioExteriorRequestSchema.optional().openapi({
    description:
      'Ingreso (I) or Traslado (T) with exportacion 02 only: the Complemento de Comercio Exterior 2.0 of a definitive export. ' +
      "The emisor's address comes from the tenant's profile (domicilio_fiscal) unless emisor.domicilio is sent; the receptor's is sent here",
  }),
  carriedBy: ({ tipo, exportacion }, sent) => {
    if (!sent) return undefined;
    if (tipo !== 'I' && tipo !== 'T') return { message: `is issued on an Ingreso (I) or a Traslado (T), not on tipo ${tipo}`, rule: 'CCE145' };
    if (exportacion !== '02') return { message: `needs exportacion 02 (definitive export), not ${exportacion ?? '01 (the default)'}`, rule: 'CCE145' };
    return undefined;
  },
  response: ComercioExteriorResponse,
  toWire: (c) => ({
    clave_de_pedimento: c.clave_de_pedimento,
    incoterm: c.incoterm,
    motivo_traslado: c.motivo_traslado,
    tipo_cambio_usd: Number(c.tipo_cambio_usd),
    total_usd: Number(c.total_usd),
    num_mercancias: c.num_mercancias,
  }),
} satisfies WireComplement<'comercio_exterior', typeof ComercioExteriorResponse>;
