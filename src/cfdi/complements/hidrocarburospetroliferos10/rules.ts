import { normalizeSpace } from '../../cadena.ts';
import type { Fail } from '../../input.ts';
import { C_CLAVE_HYP, C_SUB_PRODUCTO_HYP, C_TIPO_PERMISO } from './catalog.ts';
import type { ConceptoHidrocarburosInput } from './input.ts';
import type { HidroYPetroModel } from './model.ts';

/**
 * Complemento concepto Hidrocarburos y Petrolíferos 1.0: each concepto's request → its checked model, or undefined
 * for a concepto without it (the node is in xml.ts). Pure.
 *
 * Required on, and only on, the fuel keys of c_ClaveHYP (catalog.ts). Rule codes: SAT publishes no error matrix for
 * this complement, so no check carries a code (as Carta Porte's checks without one); each names its field. The permit
 * number's nomenclature lives in a column of SAT's c_TipoPermiso sheet, which the XSD does not carry: only its length
 * (15 to 35, whitespace collapsed) is checked.
 */
export function prepareHidrocarburosPetroliferos(conceptos: ConceptoHidrocarburosInput[], fail: Fail): (HidroYPetroModel | undefined)[] {
  return conceptos.map((c, i) => prepareHidroYPetro(c, `conceptos[${i}].hidrocarburos_petroliferos`, fail));
}

/** One concepto's complement, reported under `path` (its field): required on the fuel keys, refused elsewhere. */
export function prepareHidroYPetro(c: ConceptoHidrocarburosInput, path: string, fail: Fail): HidroYPetroModel | undefined {
  const fuel = C_CLAVE_HYP.get(c.clave_prod_serv);
  const h = c.hidrocarburos_petroliferos;
  if (!h) {
    if (fuel) fail(path, `is required on clave_prod_serv ${c.clave_prod_serv} (${fuel}): RMF 2026 rule 2.7.1.48`);
    return undefined;
  }
  if (!fuel) fail(path, `is issued only on the fuel keys of c_ClaveHYP (${[...C_CLAVE_HYP.keys()].join(', ')}), not on clave_prod_serv ${c.clave_prod_serv}`);

  // The XSD collapses every value before checking it, and the cadena writes it normalize-space'd: the same text.
  const tipoPermiso = normalizeSpace(h.tipo_permiso);
  if (!C_TIPO_PERMISO.has(tipoPermiso)) fail(`${path}.tipo_permiso`, `${JSON.stringify(h.tipo_permiso)} is not a c_TipoPermiso key (PER01 to PER11)`);
  const numeroPermiso = normalizeSpace(h.numero_permiso);
  if (numeroPermiso.length < 15 || numeroPermiso.length > 35)
    fail(`${path}.numero_permiso`, `must be 15 to 35 characters (spaces collapsed), not ${numeroPermiso.length}: ${JSON.stringify(numeroPermiso)}`);
  const claveHYP = h.clave_hyp === undefined ? c.clave_prod_serv : normalizeSpace(h.clave_hyp);
  // Off the fuel keys a defaulted clave_hyp is the concepto's key, already reported above.
  if (fuel || h.clave_hyp !== undefined) {
    if (!C_CLAVE_HYP.has(claveHYP)) fail(`${path}.clave_hyp`, `${JSON.stringify(claveHYP)} is not a c_ClaveHYP key (${[...C_CLAVE_HYP.keys()].join(', ')})`);
    else if (fuel && claveHYP !== c.clave_prod_serv) fail(`${path}.clave_hyp`, `must be the concepto's clave_prod_serv ${c.clave_prod_serv}, not ${claveHYP}`);
  }
  const subProductoHYP = normalizeSpace(h.sub_producto_hyp);
  if (!C_SUB_PRODUCTO_HYP.has(subProductoHYP))
    fail(`${path}.sub_producto_hyp`, `${JSON.stringify(h.sub_producto_hyp)} is not a c_SubProductoHYP key (${[...C_SUB_PRODUCTO_HYP].join(', ')})`);
  return { tipoPermiso, numeroPermiso, claveHYP, subProductoHYP };
}
