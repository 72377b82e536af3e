import { readFileSync } from 'node:fs';
import { parseCsv } from './csv.ts';

/**
 * SAT catalogs shipped with the project as CSV (data/, provenance in data/SAT-CATALOGS-README.md). Each file is
 * parsed once per process, on first use, and indexed by its key. The rule engine reads them through `Catalogs`;
 * `seedCatalogs` copies them into SQLite for the catalog API.
 */
export const CATALOG_KEYS = {
  c_Aduana: ['clave'],
  c_Banco: ['clave'],
  c_ClaveProdServ: ['clave'],
  c_ClaveUnidad: ['clave'],
  c_CodigoPostal: ['codigo_postal'],
  c_Estado: ['pais', 'estado'],
  c_EstadoNomina: ['pais', 'estado'],
  c_Exportacion: ['clave'],
  c_FormaPago: ['clave'],
  c_Impuesto: ['clave'],
  c_Localidad: ['estado', 'localidad'],
  c_Meses: ['clave'],
  c_MetodoPago: ['clave'],
  c_Moneda: ['clave'],
  c_MotivoCancelacion: ['clave'],
  c_Municipio: ['estado', 'municipio'],
  c_ObjetoImp: ['clave'],
  c_OrigenRecurso: ['clave'],
  c_Pais: ['clave'],
  c_Periodicidad: ['clave'],
  c_PeriodicidadPago: ['clave'],
  c_RegimenFiscal: ['clave'],
  c_RiesgoPuesto: ['clave'],
  c_TasaOCuota: ['impuesto', 'factor', 'rango_o_fijo', 'valor_maximo', 'traslado', 'retencion'],
  c_TipoCadenaPago: ['clave'],
  c_TipoContrato: ['clave'],
  c_TipoDeComprobante: ['clave'],
  c_TipoDeduccion: ['clave'],
  c_TipoFactor: ['clave'],
  c_TipoHoras: ['clave'],
  c_TipoIncapacidad: ['clave'],
  c_TipoJornada: ['clave'],
  c_TipoNomina: ['clave'],
  c_TipoOtroPago: ['clave'],
  c_TipoPercepcion: ['clave'],
  c_TipoRegimen: ['clave'],
  c_TipoRelacion: ['clave'],
  c_UsoCFDI: ['clave'],
} as const satisfies Record<string, readonly string[]>;

export type CatalogName = keyof typeof CATALOG_KEYS;
export type CatalogRow = Readonly<Record<string, string>>;

/** Identifies the shipped catalog data; bump when a CSV changes so databases reseed. */
export const CATALOG_VERSION = 'sat-10.14.20260806';

const rowsCache = new Map<CatalogName, CatalogRow[]>();
const indexCache = new Map<CatalogName, Map<string, CatalogRow>>();

export function catalogRows(name: CatalogName): CatalogRow[] {
  let rows = rowsCache.get(name);
  if (!rows) {
    rows = parseCsv(readFileSync(new URL(`./data/${name}.csv`, import.meta.url), 'utf8'));
    rowsCache.set(name, rows);
  }
  return rows;
}

export const catalogKey = (name: CatalogName, row: CatalogRow): string => CATALOG_KEYS[name].map((k) => row[k] ?? '').join('|');

export function catalogEntry(name: CatalogName, key: string): CatalogRow | undefined {
  let index = indexCache.get(name);
  if (!index) {
    index = new Map(catalogRows(name).map((r) => [catalogKey(name, r), r]));
    indexCache.set(name, index);
  }
  return index.get(key);
}

/** In force on `date` (YYYY-MM-DD comparison against valid_from/valid_to; an empty valid_to never ends). */
export function inForce(row: CatalogRow, date: string): boolean {
  const day = date.slice(0, 10);
  return (!row.valid_from || row.valid_from <= day) && (!row.valid_to || row.valid_to >= day);
}

/** The key exists and is in force on `date`. */
export const isValidKey = (name: CatalogName, key: string, date: string): boolean => {
  const row = catalogEntry(name, key);
  return row !== undefined && inForce(row, date);
};

export interface RegimenFiscal {
  clave: string;
  descripcion: string;
  fisica: boolean;
  moral: boolean;
}

export function regimenFiscal(clave: string): RegimenFiscal | undefined {
  const r = catalogEntry('c_RegimenFiscal', clave);
  if (!r || r.valid_to) return undefined;
  return { clave: r.clave!, descripcion: r.descripcion!, fisica: r.aplica_fisica === '1', moral: r.aplica_moral === '1' };
}

export const isPostalCode = (code: string): boolean => catalogEntry('c_CodigoPostal', code) !== undefined;

/** 12 characters = persona moral, 13 = persona física (SAT t_RFC). */
export const personaOf = (rfc: string): 'moral' | 'fisica' => (rfc.length === 12 ? 'moral' : 'fisica');
