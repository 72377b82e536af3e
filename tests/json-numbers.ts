/**
 * SAT keys and identifiers that are digits but not quantities: they stay strings on the wire (a catalog key keeps
 * its leading zeros and its fixed decimals, c_TasaOCuota's "0.160000").
 */
const KEYS = new Set([
  'clave_prod_serv',
  'clave_unidad',
  'forma_pago',
  'impuesto',
  'objeto_imp',
  'tasa_o_cuota',
  'folio',
  'no_identificacion',
  'regimen_fiscal',
  'domicilio_fiscal',
  'codigo_postal',
  'uso_cfdi',
  'numero',
  'exportacion',
]);

const lastName = (path: string) => path.replace(/(\[\d+\])+$/, '').slice(path.lastIndexOf('.') + 1);
const isKey = (path: string) => KEYS.has(lastName(path));

/** Where a JSON answer carries a number as a string ("1160.00"): each path with its value; empty when none does. */
export function numericStrings(value: unknown, path = '$'): string[] {
  if (typeof value === 'string') return /^-?\d+(\.\d+)?$/.test(value) && !isKey(path) ? [`${path} = "${value}"`] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => numericStrings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => numericStrings(v, `${path}.${k}`));
  return [];
}
