/** Complemento de Dividendos 1.0 as the API receives it (`dividendos`): the dividend or profit, and/or the remanente. */

/** An amount as written: a decimal string (dividendos.xsd's t_Importe: up to six decimals). */
type DecimalText = string;

export interface DividendosInput {
  divid_o_util?: {
    /** c_TipoDividendoOUtilidadDistribuida 01–06. */
    cve_tip_div_o_util: string;
    mont_isr_acred_ret_mexico: DecimalText;
    mont_isr_acred_ret_extranjero: DecimalText;
    mont_ret_ext_div_ext?: DecimalText;
    tipo_soc_distr_div: 'Sociedad Nacional' | 'Sociedad Extranjera';
    mont_isr_acred_nal?: DecimalText;
    mont_div_acum_nal?: DecimalText;
    mont_div_acum_ext?: DecimalText;
  };
  remanente?: { proporcion_rem?: DecimalText };
}
