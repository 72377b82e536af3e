/**
 * Complemento de Servicios de Plataformas Tecnológicas 1.0 as the API receives it (`plataformas_tecnologicas`): the
 * services of the period, one line each. Every total of the complement is computed (./rules.ts).
 */

/** An amount or rate as written: a decimal string. */
type DecimalText = string;

interface ServicioInput {
  /** CatPlataformasTecnologicas c_FormaPagoServ 01–09. */
  forma_pago_serv: string;
  /** c_TipoDeServ (2026 catalog: 01–09, 11). */
  tipo_de_serv: string;
  /** c_SubTipoServ (2026 catalog: 01–04, 08, 09). */
  sub_tip_serv?: string;
  /** A persona física's RFC (t_RFC_PF). */
  rfc_tercero_autorizado?: string;
  /** YYYY-MM-DD, within the document's Periodo. */
  fecha_serv: string;
  precio_serv_sin_iva: DecimalText;
  /** The IVA charged on the service: base (PrecioServSinIVA when not sent) × tasa_cuota, two decimals. */
  impuestos_trasladados?: { impuesto?: string; tasa_cuota: DecimalText; base?: DecimalText };
  contribucion_gubernamental?: { imp_contrib: DecimalText; entidad_donde_paga_la_contribucion: string };
  /** The platform's fee: `importe`, or base × porcentaje (a fraction, three decimals). */
  comision_del_servicio?: { base?: DecimalText; porcentaje?: DecimalText; importe?: DecimalText };
}

export interface PlataformasTecnologicasInput {
  /** c_Periodicidad 01–05 of catRetenciones.xsd. */
  periodicidad: string;
  servicios: ServicioInput[];
}
