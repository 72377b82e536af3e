/**
 * Complemento de Impuestos Locales 1.0 as the API receives it (`impuestos_locales`, on tipo I and E), once its format
 * is checked: rates and amounts as decimal strings. A rate is a percentage, as SAT's schema writes it (3 for 3 %).
 */

/** A rate or amount as written: a decimal string. */
type DecimalText = string;

/** A local tax withheld (RetencionesLocales): a state's cedular tax on fees or rents, for instance. */
interface RetencionLocalInput {
  imp_loc_retenido: string;
  tasa_de_retencion: DecimalText;
  /** What the rate applies to; the comprobante's SubTotal − Descuento when not sent. */
  base?: DecimalText;
  /** Computed (base × tasa ÷ 100, two decimals); checked when sent. */
  importe?: DecimalText;
}

/** A local tax charged (TrasladosLocales): a state's lodging tax (ISH), for instance. */
interface TrasladoLocalInput {
  imp_loc_trasladado: string;
  tasa_de_traslado: DecimalText;
  /** What the rate applies to; the comprobante's SubTotal − Descuento when not sent. */
  base?: DecimalText;
  /** Computed (base × tasa ÷ 100, two decimals); checked when sent. */
  importe?: DecimalText;
}

export interface ImpuestosLocalesInput {
  retenciones?: RetencionLocalInput[];
  traslados?: TrasladoLocalInput[];
}
