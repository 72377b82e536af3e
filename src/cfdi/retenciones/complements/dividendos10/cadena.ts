import { attrs, each, R, type Step } from '../../../cadena-steps.ts';

/** dividendos.xslt's order: Version, DividOUtil's attributes, Remanente's. */
export const DIVIDENDOS_10: Step[] = [
  R('Version'),
  each(
    'dividendos:DividOUtil',
    attrs('CveTipDivOUtil MontISRAcredRetMexico MontISRAcredRetExtranjero', 'MontRetExtDivExt').concat(
      attrs('TipoSocDistrDiv', 'MontISRAcredNal MontDivAcumNal MontDivAcumExt'),
    ),
  ),
  each('dividendos:Remanente', attrs('', 'ProporcionRem')),
];
