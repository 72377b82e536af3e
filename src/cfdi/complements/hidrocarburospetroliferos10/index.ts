import type { Complement } from '../complement.ts';
import type { XmlNode } from '../../xml.ts';
import { HIDROCARBUROS_PETROLIFEROS_10 } from './cadena.ts';
import type { HidrocarburosPetroliferosInput } from './input.ts';
import type { HidroYPetroModel } from './model.ts';
import { prepareHidroYPetro } from './rules.ts';
import { HIDROCARBUROS_PETROLIFEROS_NS, hidroYPetroNode } from './xml.ts';

/** GET's view, under its concepto: the values written. */
interface HidroYPetroSummary {
  tipo_permiso: string;
  numero_permiso: string;
  clave_hyp: string;
  sub_producto_hyp: string;
}

/** Under its concepto in the PDF: the permit and the product keys. */
const notes = (node: XmlNode): string[] => {
  const a = node.attrs;
  return [`Permiso ${a.TipoPermiso} ${a.NumeroPermiso}`, `Hidrocarburo/petrolífero ${a.ClaveHYP}, subproducto ${a.SubProductoHYP}`];
};

/**
 * Complemento concepto Hidrocarburos y Petrolíferos 1.0 (`conceptos[i].hidrocarburos_petroliferos`, in that
 * concepto's cfdi:ComplementoConcepto). Refused off the fuel keys of c_ClaveHYP; required on them on an Ingreso, the
 * sale RMF 2026 rule 2.7.1.48 speaks of (a Traslado moving one's own fuel, an Egreso, may carry it: docs/hidrocarburos-petroliferos.md).
 */
export const hidrocarburospetroliferos10: Complement<
  'hidrocarburos_petroliferos',
  'hidrocarburosPetroliferos',
  HidrocarburosPetroliferosInput,
  HidroYPetroModel,
  object,
  HidroYPetroSummary
> = {
  input: 'hidrocarburos_petroliferos',
  model: 'hidrocarburosPetroliferos',
  element: 'hidrocarburospetroliferos:HidroYPetro',
  prefix: HIDROCARBUROS_PETROLIFEROS_NS.prefix,
  namespace: HIDROCARBUROS_PETROLIFEROS_NS.uri,
  schemaLocation: HIDROCARBUROS_PETROLIFEROS_NS.xsd,
  prepare: (input, { conceptos, field }, _context, fail) =>
    prepareHidroYPetro({ clave_prod_serv: conceptos[0]!.claveProdServ, hidrocarburos_petroliferos: input }, field, fail),
  absent({ tipo, conceptos, field }, fail) {
    if (tipo === 'I') prepareHidroYPetro({ clave_prod_serv: conceptos[0]!.claveProdServ }, field, fail);
  },
  node: hidroYPetroNode,
  cadena: HIDROCARBUROS_PETROLIFEROS_10,
  conceptoNotes: notes,
  summary: (m) => ({ tipo_permiso: m.tipoPermiso, numero_permiso: m.numeroPermiso, clave_hyp: m.claveHYP, sub_producto_hyp: m.subProductoHYP }),
};
