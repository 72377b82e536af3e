import { el, type XmlNode } from '../../../xml.ts';
import type { DividendosModel } from './model.ts';

export const DIVIDENDOS_NS = {
  prefix: 'dividendos',
  uri: 'http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos',
  xsd: 'http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos/dividendos.xsd',
} as const;

export function dividendosNode(m: DividendosModel): XmlNode {
  const d = m.dividOUtil;
  return el('dividendos:Dividendos', { Version: '1.0' }, [
    d &&
      el('dividendos:DividOUtil', {
        CveTipDivOUtil: d.cveTipDivOUtil,
        MontISRAcredRetMexico: d.montIsrAcredRetMexico.toString(),
        MontISRAcredRetExtranjero: d.montIsrAcredRetExtranjero.toString(),
        MontRetExtDivExt: d.montRetExtDivExt?.toString(),
        TipoSocDistrDiv: d.tipoSocDistrDiv,
        MontISRAcredNal: d.montIsrAcredNal?.toString(),
        MontDivAcumNal: d.montDivAcumNal?.toString(),
        MontDivAcumExt: d.montDivAcumExt?.toString(),
      }),
    m.remanente && el('dividendos:Remanente', { ProporcionRem: m.remanente.proporcionRem?.toString() }),
  ]);
}
