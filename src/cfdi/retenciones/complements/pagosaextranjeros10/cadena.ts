import { attrs, each, type Step } from '../../../cadena-steps.ts';

/** pagosaextranjeros.xslt's order: the two attributes, NoBeneficiario's, Beneficiario's. */
export const PAGOS_A_EXTRANJEROS_10: Step[] = [
  ...attrs('Version EsBenefEfectDelCobro'),
  each('pagosaextranjeros:NoBeneficiario', attrs('PaisDeResidParaEfecFisc ConceptoPago DescripcionConcepto')),
  each('pagosaextranjeros:Beneficiario', attrs('RFC CURP NomDenRazSocB ConceptoPago DescripcionConcepto')),
];
