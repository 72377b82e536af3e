import type { Fail } from '../../../input.ts';
import { money } from '../../amounts.ts';
import type { RetencionFacts } from '../../model.ts';
import type { DividendosInput } from './input.ts';
import type { DividendosModel } from './model.ts';

const TIPO_DIVIDENDO = new Set(['01', '02', '03', '04', '05', '06']);
const TIPO_SOCIEDAD = new Set(['Sociedad Nacional', 'Sociedad Extranjera']);

/**
 * Dividendos 1.0: request → model. Pure. Its amounts are t_Importe of dividendos.xsd (up to six decimals), written as
 * sent. SAT's matrix codes for this complement are not in the project's sources: checks name field and issue only.
 */
export function prepareDividendos(req: DividendosInput, facts: RetencionFacts, fail: Fail): DividendosModel {
  const at = (path: string) => (path ? `${facts.field}.${path}` : facts.field);
  if (!req.divid_o_util && !req.remanente) fail(at(''), 'needs divid_o_util or remanente (a Dividendos complement with neither says nothing)');
  const amount = (path: string, text: string | undefined) => money(at(path), text, fail, 6);
  const model: DividendosModel = {};
  if (req.divid_o_util) {
    const d = req.divid_o_util;
    if (!TIPO_DIVIDENDO.has(d.cve_tip_div_o_util))
      fail(at('divid_o_util.cve_tip_div_o_util'), `${d.cve_tip_div_o_util} is not a key of c_TipoDividendoOUtilidadDistribuida (01–06)`);
    if (!TIPO_SOCIEDAD.has(d.tipo_soc_distr_div)) fail(at('divid_o_util.tipo_soc_distr_div'), 'must be "Sociedad Nacional" or "Sociedad Extranjera"');
    const mexico = amount('divid_o_util.mont_isr_acred_ret_mexico', d.mont_isr_acred_ret_mexico);
    const extranjero = amount('divid_o_util.mont_isr_acred_ret_extranjero', d.mont_isr_acred_ret_extranjero);
    if (mexico && extranjero)
      model.dividOUtil = {
        cveTipDivOUtil: d.cve_tip_div_o_util,
        montIsrAcredRetMexico: mexico,
        montIsrAcredRetExtranjero: extranjero,
        montRetExtDivExt: amount('divid_o_util.mont_ret_ext_div_ext', d.mont_ret_ext_div_ext),
        tipoSocDistrDiv: d.tipo_soc_distr_div,
        montIsrAcredNal: amount('divid_o_util.mont_isr_acred_nal', d.mont_isr_acred_nal),
        montDivAcumNal: amount('divid_o_util.mont_div_acum_nal', d.mont_div_acum_nal),
        montDivAcumExt: amount('divid_o_util.mont_div_acum_ext', d.mont_div_acum_ext),
      };
  }
  if (req.remanente) model.remanente = { proporcionRem: amount('remanente.proporcion_rem', req.remanente.proporcion_rem) };
  return model;
}
