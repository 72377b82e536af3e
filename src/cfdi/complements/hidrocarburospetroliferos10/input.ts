/**
 * Complemento concepto Hidrocarburos y Petrolíferos 1.0 as the API receives it (`conceptos[i].hidrocarburos_petroliferos`),
 * field names after the XSD's attributes in snake_case (Facturapi's names).
 */
export interface HidrocarburosPetroliferosInput {
  /** c_TipoPermiso (PER01–PER11). */
  tipo_permiso: string;
  /** The permit's number as the authority wrote it: 15 to 35 characters. */
  numero_permiso: string;
  /** c_ClaveHYP; the concepto's clave_prod_serv when not sent (the catalog's keys are the fuel ClaveProdServ keys). */
  clave_hyp?: string;
  /** c_SubProductoHYP. */
  sub_producto_hyp: string;
}

/** What the complement reads of a concepto of the request. */
export interface ConceptoHidrocarburosInput {
  clave_prod_serv: string;
  hidrocarburos_petroliferos?: HidrocarburosPetroliferosInput;
}
