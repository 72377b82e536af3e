import type { Dec } from '../../../decimal.ts';

export interface DividendosModel {
  dividOUtil?: {
    cveTipDivOUtil: string;
    montIsrAcredRetMexico: Dec;
    montIsrAcredRetExtranjero: Dec;
    montRetExtDivExt?: Dec;
    tipoSocDistrDiv: string;
    montIsrAcredNal?: Dec;
    montDivAcumNal?: Dec;
    montDivAcumExt?: Dec;
  };
  remanente?: { proporcionRem?: Dec };
}
