import { type CatalogChecks, catalogChecks } from '../../catalog-checks.ts';
import { Dec } from '../../../decimal.ts';
import type { Fail } from '../../../input.ts';
import type { DomicilioCartaPorteInput } from '../input.ts';
import type { DomicilioModel } from '../model.ts';
import { domicilioModel } from '../../domicilio.ts';

/** Carta Porte 3.1 rules shared by the sections: the catalog checks lent to each, the domicilio and foreign-residence checks, the transports sent. */

/** c_CveTransporte keys of the four transport sections. */
export const AUTO = '01';
export const MARITIMO = '02';
export const AEREO = '03';
export const FERROVIARIO = '04';
export const MAX_DISTANCIA = Dec.parse('99999');

export const at = (path: string) => `carta_porte.${path}`;
export const dec = (v: string) => Dec.parse(v);
export const optDec = (v: string | undefined) => (v === undefined ? undefined : Dec.parse(v));
export const siNo = (v: boolean) => (v ? 'Sí' : 'No');

export type Checks = CatalogChecks;
export const checks = (day: string, fail: Fail): Checks => catalogChecks(day, fail, at);

/** The rule codes of a domicilio's checks: a Ubicacion's (CP143–CP147) or a figura's (CP200–CP204). */
export const UBICACION_DOMICILIO = { localidad: 'CP144', municipio: 'CP145', estado: 'CP146', codigoPostal: 'CP147' };

/** A domicilio: its país from c_Pais; in Mexico its estado, código postal, municipio and localidad from SAT's catalogs and consistent. */
export function prepareDomicilio(d: DomicilioCartaPorteInput, path: string, c: Checks, rules: typeof UBICACION_DOMICILIO): DomicilioModel {
  const pais = c.catalog(`${path}.pais`, 'c_Pais', d.pais);
  // c_Estado lists the states of the countries SAT codes (MEX, USA, CAN); elsewhere the estado is free text.
  if (pais && ['MEX', 'USA', 'CAN'].includes(d.pais) && !c.row('c_Estado', `${d.pais}|${d.estado}`))
    c.fail(at(`${path}.estado`), `${d.estado} is not a c_Estado key of ${d.pais}`, rules.estado);
  if (d.pais === 'MEX') {
    const cp = c.row('c_CodigoPostal', d.codigo_postal);
    if (!cp) c.fail(at(`${path}.codigo_postal`), `${d.codigo_postal} is not a c_CodigoPostal key in force on ${c.day}`, rules.codigoPostal);
    else if (cp.estado !== d.estado) c.fail(at(`${path}.codigo_postal`), `${d.codigo_postal} is in estado ${cp.estado}, not ${d.estado}`, rules.codigoPostal);
    const same = cp && cp.estado === d.estado ? cp : undefined;
    if (d.municipio !== undefined) {
      if (!c.row('c_Municipio', `${d.estado}|${d.municipio}`))
        c.fail(at(`${path}.municipio`), `${d.municipio} is not a c_Municipio key of ${d.estado}`, rules.municipio);
      else if (same?.municipio && same.municipio !== d.municipio)
        c.fail(at(`${path}.municipio`), `código postal ${d.codigo_postal} is in municipio ${same.municipio}, not ${d.municipio}`, rules.codigoPostal);
    }
    if (d.localidad !== undefined) {
      if (!c.row('c_Localidad', `${d.estado}|${d.localidad}`))
        c.fail(at(`${path}.localidad`), `${d.localidad} is not a c_Localidad key of ${d.estado}`, rules.localidad);
      else if (same?.localidad && same.localidad !== d.localidad)
        c.fail(at(`${path}.localidad`), `código postal ${d.codigo_postal} is in localidad ${same.localidad}, not ${d.localidad}`, rules.codigoPostal);
    }
  }
  return domicilioModel(d);
}

/** A foreign tax residence: a c_Pais key other than MEX. */
export function checkResidencia(c: Checks, path: string, pais: string, rule: string) {
  if (c.catalog(path, 'c_Pais', pais, rule) && pais === 'MEX') c.fail(at(path), 'must be a country other than MEX (a foreign tax residence)', rule);
}

export interface Modes {
  auto: boolean;
  maritimo: boolean;
  aereo: boolean;
  ferroviario: boolean;
  /** c_CveTransporte keys of the sections sent. */
  keys: string[];
}

/** The permit of a transport section is one SCT grants for that transport (c_TipoPermiso's clave_transporte). */
export function checkPermiso(c: Checks, path: string, permSct: string, transporte: string) {
  const permiso = c.catalog(path, 'c_TipoPermiso', permSct);
  if (permiso && !(permiso.clave_transporte ?? '').split(',').includes(transporte))
    c.fail(at(path), `${permSct} is a permit for transport ${permiso.clave_transporte}, not for ${transporte}`);
}
