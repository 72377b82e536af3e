/**
 * Complemento de Pagos a Extranjeros 1.0 as the API receives it (`pagos_a_extranjeros`): whether the receptor is the
 * beneficial owner of the payment, the foreign resident who is (no_beneficiario) or the beneficiary's data (beneficiario).
 */
export interface PagosAExtranjerosInput {
  es_benef_efect_del_cobro: 'SI' | 'NO';
  no_beneficiario?: {
    /** Country of tax residence (c_Pais). */
    pais_de_resid_para_efec_fisc: string;
    /** c_TipoContribuyenteSujetoRetencion 1–9. */
    concepto_pago: string;
    descripcion_concepto: string;
  };
  beneficiario?: {
    rfc: string;
    curp: string;
    nom_den_raz_soc_b: string;
    concepto_pago: string;
    descripcion_concepto: string;
  };
}
