/**
 * catHidroYPetro.xsd (SAT, 2026-04-18): the complement's three catalogs, keys only. SAT's schema gives no
 * descriptions and no product → subproduct pairs, so a subproduct is checked against its list, not against the product.
 */
export const C_TIPO_PERMISO = new Set(['PER01', 'PER02', 'PER03', 'PER04', 'PER05', 'PER06', 'PER07', 'PER08', 'PER09', 'PER10', 'PER11']);

/**
 * c_ClaveHYP, with the c_ClaveProdServ description of each key. These are also the keys the complement is required
 * on (RMF 2026 rule 2.7.1.48): 15101513 (diésel off road) and 15101506 (gasolina, out of force since 2020-01-15)
 * are not in it, so they neither need nor accept it.
 */
export const C_CLAVE_HYP: ReadonlyMap<string, string> = new Map([
  ['15101505', 'Combustible diesel'],
  ['15101514', 'Gasolina regular menor a 91 octanos'],
  ['15101515', 'Gasolina premium mayor o igual a 91 octanos'],
]);

export const C_SUB_PRODUCTO_HYP = new Set(['SP16', 'SP17', 'SP18', 'SP19', 'SP22', 'SP23', 'SP24', 'SP25', 'SP48']);
