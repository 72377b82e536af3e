import { readFileSync } from 'node:fs';
import { eachRecord, parseCsv, recordCells, toRow } from './csv.ts';
import c_Aduana from './data/c_Aduana.csv' with { type: 'file' };
import c_Banco from './data/c_Banco.csv' with { type: 'file' };
import c_ClavePedimento from './data/c_ClavePedimento.csv' with { type: 'file' };
import c_ClaveProdServ from './data/c_ClaveProdServ.csv' with { type: 'file' };
import c_ClaveProdServCP from './data/c_ClaveProdServCP.csv' with { type: 'file' };
import c_ClaveTipoCarga from './data/c_ClaveTipoCarga.csv' with { type: 'file' };
import c_ClaveUnidad from './data/c_ClaveUnidad.csv' with { type: 'file' };
import c_ClaveUnidadPeso from './data/c_ClaveUnidadPeso.csv' with { type: 'file' };
import c_CodigoPostal from './data/c_CodigoPostal.csv' with { type: 'file' };
import c_CodigoTransporteAereo from './data/c_CodigoTransporteAereo.csv' with { type: 'file' };
import c_Colonia from './data/c_Colonia.csv' with { type: 'file' };
import c_CondicionesEspeciales from './data/c_CondicionesEspeciales.csv' with { type: 'file' };
import c_ConfigAutotransporte from './data/c_ConfigAutotransporte.csv' with { type: 'file' };
import c_ConfigMaritima from './data/c_ConfigMaritima.csv' with { type: 'file' };
import c_Contenedor from './data/c_Contenedor.csv' with { type: 'file' };
import c_ContenedorMaritimo from './data/c_ContenedorMaritimo.csv' with { type: 'file' };
import c_CveRetenc from './data/c_CveRetenc.csv' with { type: 'file' };
import c_CveTransporte from './data/c_CveTransporte.csv' with { type: 'file' };
import c_DerechosDePaso from './data/c_DerechosDePaso.csv' with { type: 'file' };
import c_DocumentoAduanero from './data/c_DocumentoAduanero.csv' with { type: 'file' };
import c_Estaciones from './data/c_Estaciones.csv' with { type: 'file' };
import c_Estado from './data/c_Estado.csv' with { type: 'file' };
import c_EstadoNomina from './data/c_EstadoNomina.csv' with { type: 'file' };
import c_Exportacion from './data/c_Exportacion.csv' with { type: 'file' };
import c_FiguraTransporte from './data/c_FiguraTransporte.csv' with { type: 'file' };
import c_FormaFarmaceutica from './data/c_FormaFarmaceutica.csv' with { type: 'file' };
import c_FormaPago from './data/c_FormaPago.csv' with { type: 'file' };
import c_FraccionArancelaria from './data/c_FraccionArancelaria.csv' with { type: 'file' };
import c_Impuesto from './data/c_Impuesto.csv' with { type: 'file' };
import c_INCOTERM from './data/c_INCOTERM.csv' with { type: 'file' };
import c_Localidad from './data/c_Localidad.csv' with { type: 'file' };
import c_MaterialPeligroso from './data/c_MaterialPeligroso.csv' with { type: 'file' };
import c_Meses from './data/c_Meses.csv' with { type: 'file' };
import c_MetodoPago from './data/c_MetodoPago.csv' with { type: 'file' };
import c_Moneda from './data/c_Moneda.csv' with { type: 'file' };
import c_MotivoCancelacion from './data/c_MotivoCancelacion.csv' with { type: 'file' };
import c_MotivoTraslado from './data/c_MotivoTraslado.csv' with { type: 'file' };
import c_Municipio from './data/c_Municipio.csv' with { type: 'file' };
import c_NumAutorizacionNaviero from './data/c_NumAutorizacionNaviero.csv' with { type: 'file' };
import c_ObjetoImp from './data/c_ObjetoImp.csv' with { type: 'file' };
import c_OrigenRecurso from './data/c_OrigenRecurso.csv' with { type: 'file' };
import c_Pais from './data/c_Pais.csv' with { type: 'file' };
import c_ParteTransporte from './data/c_ParteTransporte.csv' with { type: 'file' };
import c_Periodicidad from './data/c_Periodicidad.csv' with { type: 'file' };
import c_PeriodicidadPago from './data/c_PeriodicidadPago.csv' with { type: 'file' };
import c_RegimenAduanero from './data/c_RegimenAduanero.csv' with { type: 'file' };
import c_RegimenFiscal from './data/c_RegimenFiscal.csv' with { type: 'file' };
import c_RegistroISTMO from './data/c_RegistroISTMO.csv' with { type: 'file' };
import c_RiesgoPuesto from './data/c_RiesgoPuesto.csv' with { type: 'file' };
import c_SectorCOFEPRIS from './data/c_SectorCOFEPRIS.csv' with { type: 'file' };
import c_SubTipoRem from './data/c_SubTipoRem.csv' with { type: 'file' };
import c_TasaOCuota from './data/c_TasaOCuota.csv' with { type: 'file' };
import c_TipoCadenaPago from './data/c_TipoCadenaPago.csv' with { type: 'file' };
import c_TipoCarro from './data/c_TipoCarro.csv' with { type: 'file' };
import c_TipoContrato from './data/c_TipoContrato.csv' with { type: 'file' };
import c_TipoDeComprobante from './data/c_TipoDeComprobante.csv' with { type: 'file' };
import c_TipoDeduccion from './data/c_TipoDeduccion.csv' with { type: 'file' };
import c_TipoDeServicio from './data/c_TipoDeServicio.csv' with { type: 'file' };
import c_TipoDeTrafico from './data/c_TipoDeTrafico.csv' with { type: 'file' };
import c_TipoEmbalaje from './data/c_TipoEmbalaje.csv' with { type: 'file' };
import c_TipoEstacion from './data/c_TipoEstacion.csv' with { type: 'file' };
import c_TipoFactor from './data/c_TipoFactor.csv' with { type: 'file' };
import c_TipoHoras from './data/c_TipoHoras.csv' with { type: 'file' };
import c_TipoIncapacidad from './data/c_TipoIncapacidad.csv' with { type: 'file' };
import c_TipoJornada from './data/c_TipoJornada.csv' with { type: 'file' };
import c_TipoMateria from './data/c_TipoMateria.csv' with { type: 'file' };
import c_TipoNomina from './data/c_TipoNomina.csv' with { type: 'file' };
import c_TipoOtroPago from './data/c_TipoOtroPago.csv' with { type: 'file' };
import c_TipoPercepcion from './data/c_TipoPercepcion.csv' with { type: 'file' };
import c_TipoPermiso from './data/c_TipoPermiso.csv' with { type: 'file' };
import c_TipoPagoRet from './data/c_TipoPagoRet.csv' with { type: 'file' };
import c_TipoRegimen from './data/c_TipoRegimen.csv' with { type: 'file' };
import c_TipoRelacion from './data/c_TipoRelacion.csv' with { type: 'file' };
import c_UnidadAduana from './data/c_UnidadAduana.csv' with { type: 'file' };
import c_UsoCFDI from './data/c_UsoCFDI.csv' with { type: 'file' };

/**
 * SAT catalogs shipped with the project as CSV (data/, provenance in data/SAT-CATALOGS-README.md). Each file is
 * parsed once per process, on first use, and indexed by its key. The rule engine reads them through `Catalogs`;
 * `seedCatalogs` copies them into SQLite for the catalog API.
 */
export const CATALOG_KEYS = {
  c_Aduana: ['clave'],
  c_Banco: ['clave'],
  c_ClavePedimento: ['clave'],
  c_ClaveProdServ: ['clave'],
  c_ClaveProdServCP: ['clave'],
  c_ClaveTipoCarga: ['clave'],
  c_ClaveUnidad: ['clave'],
  c_ClaveUnidadPeso: ['clave'],
  c_CodigoPostal: ['codigo_postal'],
  c_CodigoTransporteAereo: ['clave'],
  c_Colonia: ['codigo_postal', 'colonia'],
  c_CondicionesEspeciales: ['clave'],
  c_ConfigAutotransporte: ['clave'],
  c_ConfigMaritima: ['clave'],
  c_Contenedor: ['clave'],
  c_ContenedorMaritimo: ['clave'],
  c_CveRetenc: ['clave'],
  c_CveTransporte: ['clave'],
  c_DerechosDePaso: ['clave'],
  c_DocumentoAduanero: ['clave'],
  c_Estaciones: ['clave'],
  c_Estado: ['pais', 'estado'],
  c_EstadoNomina: ['pais', 'estado'],
  c_Exportacion: ['clave'],
  c_FiguraTransporte: ['clave'],
  c_FormaFarmaceutica: ['clave'],
  c_FormaPago: ['clave'],
  c_FraccionArancelaria: ['clave'],
  c_Impuesto: ['clave'],
  c_INCOTERM: ['clave'],
  c_Localidad: ['estado', 'localidad'],
  c_MaterialPeligroso: ['clave'],
  c_Meses: ['clave'],
  c_MetodoPago: ['clave'],
  c_Moneda: ['clave'],
  c_MotivoCancelacion: ['clave'],
  c_MotivoTraslado: ['clave'],
  c_Municipio: ['estado', 'municipio'],
  c_NumAutorizacionNaviero: ['clave'],
  c_ObjetoImp: ['clave'],
  c_OrigenRecurso: ['clave'],
  c_Pais: ['clave'],
  c_ParteTransporte: ['clave'],
  c_Periodicidad: ['clave'],
  c_PeriodicidadPago: ['clave'],
  c_RegimenAduanero: ['clave'],
  c_RegimenFiscal: ['clave'],
  c_RegistroISTMO: ['clave'],
  c_RiesgoPuesto: ['clave'],
  c_SectorCOFEPRIS: ['clave'],
  c_SubTipoRem: ['clave'],
  c_TasaOCuota: ['impuesto', 'factor', 'rango_o_fijo', 'valor_maximo', 'traslado', 'retencion'],
  c_TipoCadenaPago: ['clave'],
  c_TipoCarro: ['clave'],
  c_TipoContrato: ['clave'],
  c_TipoDeComprobante: ['clave'],
  c_TipoDeduccion: ['clave'],
  c_TipoDeServicio: ['clave'],
  c_TipoDeTrafico: ['clave'],
  c_TipoEmbalaje: ['clave'],
  c_TipoEstacion: ['clave'],
  c_TipoFactor: ['clave'],
  c_TipoHoras: ['clave'],
  c_TipoIncapacidad: ['clave'],
  c_TipoJornada: ['clave'],
  c_TipoMateria: ['clave'],
  c_TipoNomina: ['clave'],
  c_TipoOtroPago: ['clave'],
  c_TipoPercepcion: ['clave'],
  c_TipoPermiso: ['clave'],
  c_TipoPagoRet: ['clave'],
  c_TipoRegimen: ['clave'],
  c_TipoRelacion: ['clave'],
  c_UnidadAduana: ['clave'],
  c_UsoCFDI: ['clave'],
} as const satisfies Record<string, readonly string[]>;

export type CatalogName = keyof typeof CATALOG_KEYS;
export type CatalogRow = Readonly<Record<string, string>>;

/** Where each CSV is: a file import, so the compiled executable carries it. */
const CATALOG_FILES: Record<CatalogName, string> = {
  c_Aduana,
  c_Banco,
  c_ClavePedimento,
  c_ClaveProdServ,
  c_ClaveProdServCP,
  c_ClaveTipoCarga,
  c_ClaveUnidad,
  c_ClaveUnidadPeso,
  c_CodigoPostal,
  c_CodigoTransporteAereo,
  c_Colonia,
  c_CondicionesEspeciales,
  c_ConfigAutotransporte,
  c_ConfigMaritima,
  c_Contenedor,
  c_ContenedorMaritimo,
  c_CveRetenc,
  c_CveTransporte,
  c_DerechosDePaso,
  c_DocumentoAduanero,
  c_Estaciones,
  c_Estado,
  c_EstadoNomina,
  c_Exportacion,
  c_FiguraTransporte,
  c_FormaFarmaceutica,
  c_FormaPago,
  c_FraccionArancelaria,
  c_Impuesto,
  c_INCOTERM,
  c_Localidad,
  c_MaterialPeligroso,
  c_Meses,
  c_MetodoPago,
  c_Moneda,
  c_MotivoCancelacion,
  c_MotivoTraslado,
  c_Municipio,
  c_NumAutorizacionNaviero,
  c_ObjetoImp,
  c_OrigenRecurso,
  c_Pais,
  c_ParteTransporte,
  c_Periodicidad,
  c_PeriodicidadPago,
  c_RegimenAduanero,
  c_RegimenFiscal,
  c_RegistroISTMO,
  c_RiesgoPuesto,
  c_SectorCOFEPRIS,
  c_SubTipoRem,
  c_TasaOCuota,
  c_TipoCadenaPago,
  c_TipoCarro,
  c_TipoContrato,
  c_TipoDeComprobante,
  c_TipoDeduccion,
  c_TipoDeServicio,
  c_TipoDeTrafico,
  c_TipoEmbalaje,
  c_TipoEstacion,
  c_TipoFactor,
  c_TipoHoras,
  c_TipoIncapacidad,
  c_TipoJornada,
  c_TipoMateria,
  c_TipoNomina,
  c_TipoOtroPago,
  c_TipoPercepcion,
  c_TipoPermiso,
  c_TipoPagoRet,
  c_TipoRegimen,
  c_TipoRelacion,
  c_UnidadAduana,
  c_UsoCFDI,
};

/** Identifies the shipped catalog data; bump when a CSV changes so databases reseed. */
export const CATALOG_VERSION = 'sat-10.14.20260806+cp31+cce20+ret20';

/**
 * Catalogs are parsed once per process, on first use. A small one is kept as row objects. A large one (postal
 * codes, products and services: 150,000 rows) keeps only the text of each row under its key and parses a row when
 * it is asked for: as objects they held 6 million strings, over 200 MiB, and took a second to build.
 */
const SMALL = 5000;
const rowsCache = new Map<CatalogName, CatalogRow[]>();
const indexCache = new Map<CatalogName, { header: string[]; rows: Map<string, CatalogRow | string> }>();

const readCatalog = (name: CatalogName) => readFileSync(CATALOG_FILES[name], 'utf8');

/** Every row of a catalog, in file order (kept for small catalogs; a large one is parsed again each call). */
export function catalogRows(name: CatalogName): CatalogRow[] {
  const cached = rowsCache.get(name);
  if (cached) return cached;
  const rows = parseCsv(readCatalog(name));
  if (rows.length <= SMALL) rowsCache.set(name, rows);
  return rows;
}

export const catalogKey = (name: CatalogName, row: CatalogRow): string => CATALOG_KEYS[name].map((k) => row[k] ?? '').join('|');

function indexOf(name: CatalogName) {
  let index = indexCache.get(name);
  if (!index) {
    const text = readCatalog(name);
    let header: string[] | undefined;
    let positions: number[] = [];
    const rows = new Map<string, CatalogRow | string>();
    eachRecord(text, (cells, start, end) => {
      // SAT repeats a few keys with other descriptions (c_MaterialPeligroso 2031 three times): the first row stands.
      if (header) {
        const key = positions.map((p) => cells[p] ?? '').join('|');
        if (!rows.has(key)) rows.set(key, text.slice(start, end));
      } else positions = CATALOG_KEYS[name].map((k) => (header = cells).indexOf(k));
    });
    if (rows.size <= SMALL) for (const [key, line] of rows) rows.set(key, toRow(header!, recordCells(line as string)));
    indexCache.set(name, (index = { header: header ?? [], rows }));
  }
  return index;
}

export function catalogEntry(name: CatalogName, key: string): CatalogRow | undefined {
  const { header, rows } = indexOf(name);
  const row = rows.get(key);
  return typeof row === 'string' ? toRow(header, recordCells(row)) : row;
}

/** Builds the large catalogs' indexes now (at start), so the first invoice does not wait for them. */
export function warmCatalogs(): void {
  for (const name of ['c_CodigoPostal', 'c_ClaveProdServ', 'c_ClaveUnidad'] as const) indexOf(name);
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
