import type { CartaPorteInput } from '../input.ts';
import type { TransporteAereoModel } from '../model.ts';
import { AEREO, checkPermiso, checkResidencia, type Checks } from './common.ts';

/** Carta Porte 3.1, TransporteAereo: the aircraft and its guide. */

export function prepareAereo(req: CartaPorteInput, c: Checks): TransporteAereoModel | undefined {
  const t = req.transporte_aereo;
  if (!t) return undefined;
  const path = 'transporte_aereo';
  checkPermiso(c, `${path}.perm_sct`, t.perm_sct, AEREO);
  c.catalog(`${path}.codigo_transportista`, 'c_CodigoTransporteAereo', t.codigo_transportista);
  // The shipper: a Mexican RFC, or a foreign tax id with its country (CP189, CP190).
  if (t.rfc_embarcador === undefined)
    c.need(`${path}.num_reg_id_trib_embarc`, t.num_reg_id_trib_embarc, 'without rfc_embarcador the shipper is foreign and gives its tax id', 'CP189');
  else c.forbid(`${path}.num_reg_id_trib_embarc`, t.num_reg_id_trib_embarc, 'the shipper has an RFC (rfc_embarcador)', 'CP189');
  if (t.num_reg_id_trib_embarc !== undefined)
    c.need(`${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc, 'a foreign tax id goes with its country', 'CP190');
  else c.forbid(`${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc, 'it is the country of num_reg_id_trib_embarc, which is not sent', 'CP190');
  if (t.residencia_fiscal_embarc !== undefined) checkResidencia(c, `${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc, 'CP190');
  return {
    permSct: t.perm_sct,
    numPermisoSct: t.num_permiso_sct,
    matriculaAeronave: t.matricula_aeronave,
    nombreAseg: t.nombre_aseg,
    numPolizaSeguro: t.num_poliza_seguro,
    numeroGuia: t.numero_guia,
    lugarContrato: t.lugar_contrato,
    codigoTransportista: t.codigo_transportista,
    rfcEmbarcador: t.rfc_embarcador,
    numRegIdTribEmbarc: t.num_reg_id_trib_embarc,
    residenciaFiscalEmbarc: t.residencia_fiscal_embarc,
    nombreEmbarcador: t.nombre_embarcador,
  };
}
