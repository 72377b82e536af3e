import { domicilioModel } from '../../domicilio.ts';
import type { DomicilioComercioExteriorInput } from '../input.ts';
import type { DomicilioComercioExteriorModel } from '../model.ts';
import { at, type Checks } from './checks.ts';

/** The rule codes of one party's domicilio checks (see the table in index.ts). */
export interface DomicilioRules {
  estado: string;
  municipio: string;
  localidad: string;
  colonia: string;
  /** A Mexican código postal whose estado, municipio or localidad differ from the ones sent. */
  codigoPostal: string;
  /** A foreign código postal against c_Pais' pattern; the emisor's domicilio is always in Mexico. */
  codigoPostalPattern?: string;
}

export const EMISOR_DOMICILIO: DomicilioRules = { estado: 'CCE169', municipio: 'CCE170', localidad: 'CCE171', colonia: 'CCE172', codigoPostal: 'CCE173' };
export const RECEPTOR_DOMICILIO: DomicilioRules = {
  colonia: 'CCE182',
  localidad: 'CCE183',
  municipio: 'CCE184',
  estado: 'CCE185',
  codigoPostalPattern: 'CCE186',
  codigoPostal: 'CCE187',
};
export const DESTINATARIO_DOMICILIO: DomicilioRules = {
  colonia: 'CCE191',
  localidad: 'CCE192',
  municipio: 'CCE193',
  estado: 'CCE194',
  codigoPostalPattern: 'CCE195',
  codigoPostal: 'CCE196',
};

/** A c_Colonia key: four digits. Abroad, and for the receptor and destinatarios, a colonia may also be a name. */
const COLONIA_KEY = /^[0-9]{4}$/;

/** SAT's regex columns are whole-value patterns. */
const matchesWhole = (pattern: string, value: string) => new RegExp(`^(?:${pattern})$`).test(value);

/**
 * A domicilio: its país from c_Pais; in Mexico estado, municipio, localidad and colonia from SAT's catalogs and
 * consistent with c_CodigoPostal; abroad the estado from c_Estado where SAT keys that country's states (USA, CAN)
 * and the código postal against c_Pais' pattern. `coloniaKey` says the colonia must be a c_Colonia key (the
 * emisor's, whose XSD type is catCFDI:c_Colonia).
 */
export function prepareDomicilio(
  d: DomicilioComercioExteriorInput,
  path: string,
  c: Checks,
  rules: DomicilioRules,
  coloniaKey = false,
): DomicilioComercioExteriorModel {
  const pais = c.catalog(`${path}.pais`, 'c_Pais', d.pais);
  if (d.pais === 'MEX') {
    if (!c.row('c_Estado', `MEX|${d.estado}`)) c.fail(at(`${path}.estado`), `${d.estado} is not a c_Estado key of MEX`, rules.estado);
    if (d.municipio !== undefined && !c.row('c_Municipio', `${d.estado}|${d.municipio}`))
      c.fail(at(`${path}.municipio`), `${d.municipio} is not a c_Municipio key of estado ${d.estado}`, rules.municipio);
    if (d.localidad !== undefined && !c.row('c_Localidad', `${d.estado}|${d.localidad}`))
      c.fail(at(`${path}.localidad`), `${d.localidad} is not a c_Localidad key of estado ${d.estado}`, rules.localidad);
    if (d.colonia !== undefined && (coloniaKey || COLONIA_KEY.test(d.colonia)) && !c.row('c_Colonia', `${d.codigo_postal}|${d.colonia}`))
      c.fail(at(`${path}.colonia`), `${d.colonia} is not a c_Colonia key of código postal ${d.codigo_postal}`, rules.colonia);
    const cp = c.row('c_CodigoPostal', d.codigo_postal);
    if (!cp) c.fail(at(`${path}.codigo_postal`), `${d.codigo_postal} is not a c_CodigoPostal key in force on ${c.day}`, rules.codigoPostal);
    else {
      const differs = (
        [
          ['estado', cp.estado, d.estado],
          ['municipio', cp.municipio, d.municipio],
          ['localidad', cp.localidad, d.localidad],
        ] as const
      ).filter(([, catalog, sent]) => sent !== undefined && catalog !== sent);
      if (differs.length > 0)
        c.fail(
          at(`${path}.codigo_postal`),
          `código postal ${d.codigo_postal} is in ${differs.map(([name, catalog]) => `${name} ${catalog || '(none)'}`).join(', ')}, not the ${differs.map(([name]) => name).join(', ')} sent`,
          rules.codigoPostal,
        );
    }
  } else if (pais) {
    // c_Estado keys the states of MEX, USA and CAN; elsewhere the estado is free text.
    if (['USA', 'CAN'].includes(d.pais) && !c.row('c_Estado', `${d.pais}|${d.estado}`))
      c.fail(at(`${path}.estado`), `${d.estado} is not a c_Estado key of ${d.pais}`, rules.estado);
    const pattern = pais.formato_codigo_postal;
    if (pattern && rules.codigoPostalPattern && !matchesWhole(pattern, d.codigo_postal))
      c.fail(at(`${path}.codigo_postal`), `${d.codigo_postal} does not match ${d.pais}'s código postal pattern ${pattern} (c_Pais)`, rules.codigoPostalPattern);
  }
  return domicilioModel(d);
}

/** SAT's MEX row ends its RFC pattern in `[0\n-9A]` (a defect of the sheet): read as the RFC's `[0-9A]`. */
const taxIdPattern = (pais: string, pattern: string) => (pais === 'MEX' ? pattern.replace('[0\\n-9A]', '[0-9A]') : pattern);

/**
 * A foreign tax id against its country's row of c_Pais. Where SAT validates it against a list of its own ("Lista
 * del SAT": Mexico's RFCs) the list is not published, so the id is held to the country's pattern and a mismatch
 * reported under the list's code; elsewhere a pattern, when the country has one.
 */
export function checkTaxId(c: Checks, path: string, id: string, pais: string, rules: { list: string; pattern: string }): void {
  const row = c.row('c_Pais', pais);
  const pattern = row?.formato_registro_identidad_tributaria;
  if (!row || !pattern) return;
  if (matchesWhole(taxIdPattern(pais, pattern), id)) return;
  const listed = row.validacion_registro_identidad_tributaria !== '';
  c.fail(
    at(path),
    listed
      ? `${id} is not a tax id of ${pais}: SAT checks it against its ${row.validacion_registro_identidad_tributaria} (pattern ${taxIdPattern(pais, pattern)})`
      : `${id} does not match ${pais}'s tax id pattern ${pattern} (c_Pais)`,
    listed ? rules.list : rules.pattern,
  );
}
