import type { CartaPorteInput } from '../input.ts';
import type { AutotransporteModel } from '../model.ts';
import { AUTO, checkPermiso, type Checks, dec, optDec } from './common.ts';

/** Carta Porte 3.1, Autotransporte: the truck, its permit, insurance and trailers. */

export function prepareAutotransporte(req: CartaPorteInput, peligroso: boolean, c: Checks): AutotransporteModel | undefined {
  const a = req.autotransporte;
  if (!a) return undefined;
  const path = 'autotransporte';
  checkPermiso(c, `${path}.perm_sct`, a.perm_sct, AUTO);
  const v = a.identificacion_vehicular;
  const config = c.catalog(`${path}.identificacion_vehicular.config_vehicular`, 'c_ConfigAutotransporte', v.config_vehicular);
  // c_ConfigAutotransporte's remolque column: 1 pulls a trailer, 0 does not, "0, 1" may (CP184).
  const remolque = config?.remolque?.replace(/\s/g, '');
  if (remolque === '1') c.need(`${path}.remolques`, a.remolques, `config_vehicular ${v.config_vehicular} pulls a trailer (c_ConfigAutotransporte)`, 'CP184');
  if (remolque === '0') c.forbid(`${path}.remolques`, a.remolques, `config_vehicular ${v.config_vehicular} pulls no trailer (c_ConfigAutotransporte)`, 'CP184');
  const remolques = (a.remolques ?? []).map((r, i) => {
    c.catalog(`${path}.remolques[${i}].sub_tipo_rem`, 'c_SubTipoRem', r.sub_tipo_rem);
    return { subTipoRem: r.sub_tipo_rem, placa: r.placa };
  });
  // Hazardous goods travel insured for environmental damage, and only they (CP182, CP183).
  const s = a.seguros;
  if (peligroso) c.need(`${path}.seguros.asegura_med_ambiente`, s.asegura_med_ambiente, 'hazardous goods travel insured for environmental damage', 'CP182');
  else
    c.forbid(
      `${path}.seguros.asegura_med_ambiente`,
      s.asegura_med_ambiente,
      'the environmental insurance is for hazardous goods (material_peligroso true)',
      'CP182',
    );
  if (s.asegura_med_ambiente !== undefined)
    c.need(`${path}.seguros.poliza_med_ambiente`, s.poliza_med_ambiente, 'the environmental insurer issues a policy', 'CP183');
  else c.forbid(`${path}.seguros.poliza_med_ambiente`, s.poliza_med_ambiente, 'it is the policy of asegura_med_ambiente, which is not sent', 'CP183');
  return {
    permSct: a.perm_sct,
    numPermisoSct: a.num_permiso_sct,
    identificacionVehicular: {
      configVehicular: v.config_vehicular,
      pesoBrutoVehicular: dec(v.peso_bruto_vehicular),
      placaVm: v.placa_vm,
      anioModeloVm: v.anio_modelo_vm,
    },
    seguros: {
      aseguraRespCivil: s.asegura_resp_civil,
      polizaRespCivil: s.poliza_resp_civil,
      aseguraMedAmbiente: s.asegura_med_ambiente,
      polizaMedAmbiente: s.poliza_med_ambiente,
      aseguraCarga: s.asegura_carga,
      polizaCarga: s.poliza_carga,
      primaSeguro: optDec(s.prima_seguro),
    },
    remolques,
  };
}
