import type { DomicilioInput } from '../domicilio.ts';

/**
 * Complemento de Comercio Exterior 2.0 as the API receives it (`comercio_exterior`, on tipo I and T with
 * `exportacion: "02"`), once its format is checked: amounts as decimal strings, names as the request spells them.
 * The emisor's address is the tenant's fiscal address, handed in by the caller, unless the request sends one.
 */

/** An amount, quantity or exchange rate as written: a non-negative decimal string. */
type DecimalText = string;

/** A domicilio: in Mexico its colonia, localidad, municipio and estado are SAT catalog keys; abroad free text (estado keyed for USA and CAN). */
export interface DomicilioComercioExteriorInput extends DomicilioInput {
  calle: string;
}

interface DescripcionEspecificaInput {
  marca: string;
  modelo?: string;
  sub_modelo?: string;
  numero_serie?: string;
}

/**
 * One Mercancia. `valor_dolares` is computed from the conceptos with the same `no_identificacion` when this is the
 * only mercancía with it; several mercancías of one `no_identificacion` (split by fracción) each send theirs.
 */
export interface MercanciaComercioExteriorInput {
  no_identificacion: string;
  fraccion_arancelaria?: string;
  cantidad_aduana?: DecimalText;
  unidad_aduana?: string;
  valor_unitario_aduana?: DecimalText;
  valor_dolares?: DecimalText;
  descripciones_especificas?: DescripcionEspecificaInput[];
}

export interface ComercioExteriorInput {
  /** c_MotivoTraslado: on a Traslado (T) only, and always there. */
  motivo_traslado?: string;
  /** c_ClavePedimento; A1 when not sent. */
  clave_de_pedimento?: string;
  /** 1 when this CFDI serves as certificate of origin; 0 when not sent. */
  certificado_origen?: 0 | 1;
  num_certificado_origen?: string;
  numero_exportador_confiable?: string;
  incoterm?: string;
  observaciones?: string;
  /** Pesos per US dollar; on a CFDI in USD it defaults to the comprobante's TipoCambio. */
  tipo_cambio_usd?: DecimalText;
  /** Computed (Σ ValorDolares, two decimals); checked when sent. */
  total_usd?: DecimalText;
  /**
   * The issuer's CURP (a persona física, 13-character RFC) and its fiscal address when this request states it; without
   * one, the address on the issuer's profile is used.
   */
  emisor?: { curp?: string; domicilio?: DomicilioComercioExteriorInput };
  /** The owners of the goods of a Traslado with motivo 05. */
  propietario?: { num_reg_id_trib: string; residencia_fiscal: string }[];
  receptor?: { num_reg_id_trib?: string; domicilio?: DomicilioComercioExteriorInput };
  destinatario?: { num_reg_id_trib?: string; nombre?: string; domicilio: DomicilioComercioExteriorInput[] }[];
  /** When absent: one mercancía per `no_identificacion` of the conceptos, in their order. */
  mercancias?: MercanciaComercioExteriorInput[];
}
