import type { Fail } from '../../../input.ts';
import { T_CURP, T_RFC } from '../../../patterns.ts';
import { C_PAIS_RETENCIONES } from '../../catalogs.ts';
import type { RetencionFacts } from '../../model.ts';
import type { PagosAExtranjerosInput } from './input.ts';
import type { PagosAExtranjerosModel } from './model.ts';

const CONCEPTO_PAGO = new Set(['1', '2', '3', '4', '5', '6', '7', '8', '9']);

/**
 * Pagos a Extranjeros 1.0: request → model. Pure. The country is a key of catRetenciones.xsd's c_Pais other than MX.
 * RFC and CURP are held to tdCFDI's patterns (stricter than the complement's own, which every real one meets).
 * SAT's matrix codes for this complement are not in the project's sources: checks name field and issue only.
 */
export function preparePagosAExtranjeros(req: PagosAExtranjerosInput, facts: RetencionFacts, fail: Fail): PagosAExtranjerosModel {
  const at = (path: string) => (path ? `${facts.field}.${path}` : facts.field);
  if (req.es_benef_efect_del_cobro !== 'SI' && req.es_benef_efect_del_cobro !== 'NO') fail(at('es_benef_efect_del_cobro'), 'must be SI or NO');
  if (!req.no_beneficiario && !req.beneficiario) fail(at(''), 'needs no_beneficiario (the foreign resident) or beneficiario');
  const description = (path: string, text: string) => {
    if (text.trim().length === 0 || text.length > 255) fail(at(path), 'must be 1 to 255 characters');
  };
  const concepto = (path: string, key: string) => {
    if (!CONCEPTO_PAGO.has(key)) fail(at(path), `${key} is not a key of c_TipoContribuyenteSujetoRetencion (1–9)`);
  };
  const model: PagosAExtranjerosModel = { esBenefEfectDelCobro: req.es_benef_efect_del_cobro };
  if (req.no_beneficiario) {
    const n = req.no_beneficiario;
    if (!C_PAIS_RETENCIONES.has(n.pais_de_resid_para_efec_fisc) || n.pais_de_resid_para_efec_fisc === 'MX')
      fail(
        at('no_beneficiario.pais_de_resid_para_efec_fisc'),
        `${n.pais_de_resid_para_efec_fisc} is not a foreign country of catRetenciones' c_Pais (two letters)`,
      );
    concepto('no_beneficiario.concepto_pago', n.concepto_pago);
    description('no_beneficiario.descripcion_concepto', n.descripcion_concepto);
    model.noBeneficiario = {
      paisDeResidParaEfecFisc: n.pais_de_resid_para_efec_fisc,
      conceptoPago: n.concepto_pago,
      descripcionConcepto: n.descripcion_concepto,
    };
  }
  if (req.beneficiario) {
    const b = req.beneficiario;
    if (!T_RFC.test(b.rfc)) fail(at('beneficiario.rfc'), 'is not a valid RFC');
    if (!T_CURP.test(b.curp)) fail(at('beneficiario.curp'), 'is not a valid CURP');
    if (b.nom_den_raz_soc_b.trim().length === 0 || b.nom_den_raz_soc_b.length > 300) fail(at('beneficiario.nom_den_raz_soc_b'), 'must be 1 to 300 characters');
    concepto('beneficiario.concepto_pago', b.concepto_pago);
    description('beneficiario.descripcion_concepto', b.descripcion_concepto);
    model.beneficiario = {
      rfc: b.rfc,
      curp: b.curp,
      nomDenRazSocB: b.nom_den_raz_soc_b,
      conceptoPago: b.concepto_pago,
      descripcionConcepto: b.descripcion_concepto,
    };
  }
  return model;
}
