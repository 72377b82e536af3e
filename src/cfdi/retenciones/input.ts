/**
 * What the Retenciones 2.0 engine takes: a request as the API will receive it once its format is checked (amounts as
 * decimal strings), field names as the public request spells them. Its structured complements' members
 * (`plataformas_tecnologicas`, `dividendos`, `pagos_a_extranjeros`) come from the registry (./complements/index.ts).
 */
import type { ComplementInputs } from './complements/index.ts';

/** An amount as written: a non-negative decimal string (src/cfdi/decimal.ts parses it). */
type DecimalText = string;

/** One tax withheld (retenciones:ImpRetenidos). */
interface ImpRetenidoInput {
  /** c_Impuesto: 001 ISR, 002 IVA, 003 IEPS. */
  impuesto_ret?: string;
  base_ret?: DecimalText;
  /** The rate withheld, as a fraction (0.10 for 10 %): MontoRet = BaseRet × tasa, two decimals. */
  tasa?: DecimalText;
  /** The amount withheld; computed from base_ret × tasa when not sent, checked against it when both are. */
  monto_ret?: DecimalText;
  /** c_TipoPagoRet 01–04. */
  tipo_pago_ret: string;
}

/** The receptor: Nacional (RFC, name, postal code, CURP optional) or Extranjero (name, tax id optional). */
interface ReceptorRetencionInput {
  nacionalidad: 'Nacional' | 'Extranjero';
  nombre: string;
  rfc?: string;
  curp?: string;
  domicilio_fiscal?: string;
  num_reg_id_trib?: string;
}

interface TotalesInput {
  monto_tot_operacion: DecimalText;
  monto_tot_grav: DecimalText;
  /** MontoTotOperacion − MontoTotGrav when not sent; checked when sent (Reten20127). */
  monto_tot_exent?: DecimalText;
  /** Σ MontoRet; checked when sent (Reten20131). */
  monto_tot_ret?: DecimalText;
  utilidad_bimestral?: DecimalText;
  isr_correspondiente?: DecimalText;
}

interface RetencionBaseInput {
  /** c_CveRetenc 01–28; 25 (otro tipo) needs desc_retenc. */
  cve_retenc: string;
  desc_retenc?: string;
  /** FechaExp as YYYY-MM-DDThh:mm:ss; the issuer's local time now when not sent. */
  fecha_exp?: string;
  cfdi_reten_relacionados?: { tipo_relacion: string; uuid: string };
  receptor: ReceptorRetencionInput;
  periodo: { mes_ini: string; mes_fin: string; ejercicio: string };
  totales: TotalesInput;
  impuestos_retenidos?: ImpRetenidoInput[];
  /** SAT's other complements (Intereses, Premios, …), each the XML of its element, checked against its SAT schema. */
  complementos_xml?: string[];
}

export type RetencionInput = RetencionBaseInput & ComplementInputs;
