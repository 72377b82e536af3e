import { and, asc, eq, gt, like, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { prepared } from '../db/prepared.ts';
import { catalogEntries } from '../db/schema/index.ts';
import { invalidInput, ServiceError } from '../lib/service-error.ts';
import { decodeCursor, encodeCursor } from '../lib/pagination.ts';
import { catalogEntry, type CatalogName, type CatalogRow, catalogRows } from './index.ts';
import { catalogQueries, type SearchTerm } from './queries.ts';
import { SEARCHABLE, seedCatalogs } from './seed.ts';

/**
 * The SAT catalogs as the API shows them: each public name maps to a catalog and to what its rows look like on the
 * wire. Search is the engine's word index for the big ones (SEARCHABLE: products/services, units, hazardous materials,
 * tariff fractions) and a plain filter for the rest.
 */
const bool = (v: string | undefined) => v === '1';
const list = (v: string | undefined) => (v ? v.split(';').filter(Boolean) : []);
type Shape = (r: CatalogRow) => Record<string, unknown>;

/** Catalogs shown as they are: key, description, validity (the Nómina ones among them). */
const PLAIN: Record<string, CatalogName> = {
  'metodos-pago': 'c_MetodoPago',
  'motivos-cancelacion': 'c_MotivoCancelacion',
  'tipos-relacion': 'c_TipoRelacion',
  'objetos-impuesto': 'c_ObjetoImp',
  exportaciones: 'c_Exportacion',
  paises: 'c_Pais',
  'tipos-nomina': 'c_TipoNomina',
  'tipos-contrato': 'c_TipoContrato',
  'tipos-jornada': 'c_TipoJornada',
  'tipos-regimen': 'c_TipoRegimen',
  'periodicidades-pago': 'c_PeriodicidadPago',
  'riesgos-puesto': 'c_RiesgoPuesto',
  'tipos-percepcion': 'c_TipoPercepcion',
  'tipos-deduccion': 'c_TipoDeduccion',
  'tipos-otro-pago': 'c_TipoOtroPago',
  'tipos-incapacidad': 'c_TipoIncapacidad',
  'tipos-horas': 'c_TipoHoras',
  'origenes-recurso': 'c_OrigenRecurso',
};

/**
 * SAT's three-way columns ("0", "1", "0,1"; c_ConfigAutotransporte writes "0, 1") as one spelling, and what each
 * means: "0,1" is SAT's "either", which the issuer settles in the document.
 */
const threeWay = (v: string | undefined) => (v ?? '').replace(/\s+/g, '');
const reading = <T extends string>(v: string | undefined, yes: T, no: T, either: T) => ({ '1': yes, '0': no, '0,1': either })[threeWay(v)];
const opt = (v: string | undefined) => v || undefined;
/** "01,02,03" (c_TipoPermiso) and "02, 03 y 04" (c_TipoEstacion): the c_CveTransporte keys a row applies to. */
const transportKeys = (v: string | undefined) => v?.match(/\d{2}/g) ?? [];

/** Complemento Carta Porte 3.1: its catalogs, and c_FraccionArancelaria (Comercio Exterior 2.0) that it uses. */
const CARTA_PORTE: Record<string, { catalog: CatalogName; title: string; shape?: Shape }> = {
  'productos-servicios-carta-porte': {
    catalog: 'c_ClaveProdServCP',
    title:
      "c_ClaveProdServCP: goods transported (BienesTransp), search `q` over descriptions and similar words; `material_peligroso` is SAT's column " +
      '("0", "1", "0,1") and `peligroso` its reading: `si` (SAT classes the goods as hazardous: declare MaterialPeligroso, "Sí" with ' +
      'CveMaterialPeligroso and Embalaje unless a laboratory result shows otherwise), `puede_serlo` (depends on their composition: ' +
      'declare "Sí" or "No"), `no` (not hazardous: no MaterialPeligroso)',
    shape: (r) => ({
      palabras_similares: opt(r.palabras_similares),
      material_peligroso: threeWay(r.material_peligroso),
      peligroso: reading(r.material_peligroso, 'si', 'no', 'puede_serlo'),
    }),
  },
  'materiales-peligrosos': {
    catalog: 'c_MaterialPeligroso',
    title: 'c_MaterialPeligroso (CveMaterialPeligroso, UN numbers), search `q`; with clase_o_div, peligro_secundario and nombre_tecnico',
    shape: (r) => ({ clase_o_div: r.clase_o_div, peligro_secundario: opt(r.peligro_secundario), nombre_tecnico: opt(r.nombre_tecnico) }),
  },
  'tipos-embalaje': { catalog: 'c_TipoEmbalaje', title: 'c_TipoEmbalaje (Embalaje of hazardous goods)' },
  'unidades-peso': {
    catalog: 'c_ClaveUnidadPeso',
    title: 'c_ClaveUnidadPeso (UnidadPeso), with nombre, simbolo and bandera (Masa, Volumen, Embalaje)',
    shape: (r) => ({ nombre: r.nombre, simbolo: opt(r.simbolo), bandera: r.bandera, nota: opt(r.nota) }),
  },
  'fracciones-arancelarias': {
    catalog: 'c_FraccionArancelaria',
    title: 'c_FraccionArancelaria (Comercio Exterior 2.0 tariff fractions), search `q`; with unidad_aduana (c_UnidadAduana)',
    shape: (r) => ({ unidad_aduana: r.unidad_aduana }),
  },
  'documentos-aduaneros': { catalog: 'c_DocumentoAduanero', title: 'c_DocumentoAduanero (TipoDocumento)' },
  'regimenes-aduaneros': {
    catalog: 'c_RegimenAduanero',
    title: 'c_RegimenAduanero, with the EntradaSalidaMerc each allows (entrada, salida)',
    shape: (r) => {
      const ways = (r.entrada_salida ?? '').split(',').map((w) => w.trim());
      return { entrada: ways.includes('Entrada'), salida: ways.includes('Salida') };
    },
  },
  'sectores-cofepris': { catalog: 'c_SectorCOFEPRIS', title: 'c_SectorCOFEPRIS' },
  'formas-farmaceuticas': { catalog: 'c_FormaFarmaceutica', title: 'c_FormaFarmaceutica' },
  'condiciones-especiales': { catalog: 'c_CondicionesEspeciales', title: 'c_CondicionesEspeciales (CondicionesEspTransp)' },
  'tipos-materia': { catalog: 'c_TipoMateria', title: 'c_TipoMateria' },
  'claves-transporte': { catalog: 'c_CveTransporte', title: 'c_CveTransporte (ViaEntradaSalida)' },
  'tipos-estacion': {
    catalog: 'c_TipoEstacion',
    title: 'c_TipoEstacion, with the c_CveTransporte keys it applies to (claves_transporte)',
    shape: (r) => ({ claves_transporte: transportKeys(r.claves_transporte) }),
  },
  estaciones: {
    catalog: 'c_Estaciones',
    title: 'c_Estaciones (NumEstacion: ports, airports, rail stations), with clave_transporte, nacionalidad, designador_iata, linea_ferrea',
    shape: (r) => ({
      clave_transporte: r.clave_transporte,
      nacionalidad: r.nacionalidad,
      designador_iata: opt(r.designador_iata),
      linea_ferrea: opt(r.linea_ferrea),
    }),
  },
  'figuras-transporte': { catalog: 'c_FiguraTransporte', title: 'c_FiguraTransporte (TipoFigura)' },
  'partes-transporte': { catalog: 'c_ParteTransporte', title: 'c_ParteTransporte (PartesTransporte of a lessor or owner)' },
  'tipos-permiso': {
    catalog: 'c_TipoPermiso',
    title: 'c_TipoPermiso (PermSCT), with the c_CveTransporte keys it applies to (claves_transporte)',
    shape: (r) => ({ claves_transporte: transportKeys(r.clave_transporte) }),
  },
  'configuraciones-autotransporte': {
    catalog: 'c_ConfigAutotransporte',
    title:
      'c_ConfigAutotransporte (ConfigVehicular), with numero_ejes, numero_llantas and `remolque`, SAT\'s column ("0", "1", "0,1"), ' +
      'read as `lleva_remolque`: `si` (Remolques required), `no` (none allowed), `opcional`',
    shape: (r) => ({
      numero_ejes: Number(r.numero_ejes),
      numero_llantas: Number(r.numero_llantas),
      remolque: threeWay(r.remolque),
      lleva_remolque: reading(r.remolque, 'si', 'no', 'opcional'),
    }),
  },
  'tipos-remolque': { catalog: 'c_SubTipoRem', title: 'c_SubTipoRem (SubTipoRem of a Remolque)' },
  'configuraciones-maritimas': { catalog: 'c_ConfigMaritima', title: 'c_ConfigMaritima (TipoEmbarcacion)' },
  'tipos-carga': { catalog: 'c_ClaveTipoCarga', title: 'c_ClaveTipoCarga (TipoCarga)' },
  'contenedores-maritimos': { catalog: 'c_ContenedorMaritimo', title: 'c_ContenedorMaritimo (TipoContenedor in TransporteMaritimo)' },
  'autorizaciones-navieras': {
    catalog: 'c_NumAutorizacionNaviero',
    title: 'c_NumAutorizacionNaviero (NumAutorizacionNaviero; a key with "/" goes in the path as %2F)',
  },
  'registros-istmo': { catalog: 'c_RegistroISTMO', title: 'c_RegistroISTMO (RegistroISTMO, Corredor Interoceánico)' },
  'codigos-transporte-aereo': {
    catalog: 'c_CodigoTransporteAereo',
    title: 'c_CodigoTransporteAereo (CodigoTransportista), with nacionalidad and designador_oaci',
    shape: (r) => ({ nacionalidad: r.nacionalidad, designador_oaci: opt(r.designador_oaci) }),
  },
  'tipos-servicio': {
    catalog: 'c_TipoDeServicio',
    title: 'c_TipoDeServicio (rail TipoDeServicio), with contenedor: whether it carries containers',
    shape: (r) => ({ contenedor: bool(r.contenedor) }),
  },
  'tipos-trafico': { catalog: 'c_TipoDeTrafico', title: 'c_TipoDeTrafico (rail TipoDeTrafico)' },
  'derechos-paso': {
    catalog: 'c_DerechosDePaso',
    title: 'c_DerechosDePaso (TipoDerechoDePaso), with entre, hasta, otorga_recibe and concesionario',
    shape: (r) => ({ entre: r.entre, hasta: r.hasta, otorga_recibe: r.otorga_recibe, concesionario: r.concesionario }),
  },
  'tipos-carro': {
    catalog: 'c_TipoCarro',
    title: 'c_TipoCarro (rail TipoCarro), with contenedor: whether the car carries containers',
    shape: (r) => ({ contenedor: bool(r.contenedor) }),
  },
  contenedores: { catalog: 'c_Contenedor', title: 'c_Contenedor (rail TipoContenedor), with nombre', shape: (r) => ({ nombre: r.nombre }) },
};

/** Complemento de Comercio Exterior 2.0: its own catalogs (c_FraccionArancelaria is served with Carta Porte's). */
const COMERCIO_EXTERIOR: Record<string, { catalog: CatalogName; title: string }> = {
  'unidades-aduana': { catalog: 'c_UnidadAduana', title: "c_UnidadAduana (Comercio Exterior's UnidadAduana: a fracción's unit of measure, UMT)" },
  incoterms: { catalog: 'c_INCOTERM', title: 'c_INCOTERM (Comercio Exterior Incoterm)' },
  'claves-pedimento': { catalog: 'c_ClavePedimento', title: 'c_ClavePedimento (Comercio Exterior ClaveDePedimento)' },
  'motivos-traslado': { catalog: 'c_MotivoTraslado', title: 'c_MotivoTraslado (Comercio Exterior on a Traslado)' },
};

/** CFDI de Retenciones e información de pagos 2.0 (POST /retenciones): the keys with SAT's descriptions in src/cfdi/retenciones/catalogs.ts. */
const RETENCIONES: Record<string, { catalog: CatalogName; title: string }> = {
  'claves-retencion': { catalog: 'c_CveRetenc', title: 'c_CveRetenc (Retenciones 2.0 cve_retenc; 25 "Otro tipo" needs desc_retenc)' },
  'tipos-pago-retencion': {
    catalog: 'c_TipoPagoRet',
    title: 'c_TipoPagoRet (Retenciones 2.0 impuestos_retenidos[].tipo_pago_ret: 01 IVA, 02 IEPS, 03 and 04 ISR definitive or provisional)',
  },
  'periodicidades-retencion': {
    catalog: 'c_Periodicidad',
    title: "c_Periodicidad (Servicios de Plataformas Tecnológicas' periodicidad; the keys and descriptions of the CFDI's c_Periodicidad)",
  },
};

export const CATALOGS: Record<string, { catalog: CatalogName; title: string; shape?: Shape }> = {
  ...Object.fromEntries(Object.entries(PLAIN).map(([name, catalog]) => [name, { catalog, title: catalog }])),
  'productos-servicios': {
    catalog: 'c_ClaveProdServ',
    title: "c_ClaveProdServ: products and services (search `q` over descriptions and SAT's similar words)",
    shape: (r) => ({
      palabras_similares: r.palabras_similares || undefined,
      incluir_iva_trasladado: r.incluir_iva_trasladado,
      incluir_ieps_trasladado: r.incluir_ieps_trasladado,
      complemento: r.complemento || undefined,
      estimulo_franja_fronteriza: r.estimulo_franja_fronteriza,
    }),
  },
  unidades: { catalog: 'c_ClaveUnidad', title: 'c_ClaveUnidad: units (search `q`)', shape: (r) => ({ nombre: r.nombre, simbolo: r.simbolo || undefined }) },
  'regimenes-fiscales': {
    catalog: 'c_RegimenFiscal',
    title: 'c_RegimenFiscal',
    shape: (r) => ({ persona_fisica: bool(r.aplica_fisica), persona_moral: bool(r.aplica_moral) }),
  },
  'usos-cfdi': {
    catalog: 'c_UsoCFDI',
    title: 'c_UsoCFDI, with the receptor regimes each one allows',
    shape: (r) => ({ persona_fisica: bool(r.aplica_fisica), persona_moral: bool(r.aplica_moral), regimenes_receptor: list(r.regimenes_receptor) }),
  },
  'formas-pago': { catalog: 'c_FormaPago', title: 'c_FormaPago', shape: (r) => ({ bancarizado: bool(r.bancarizado) }) },
  monedas: { catalog: 'c_Moneda', title: 'c_Moneda, with the decimals amounts carry', shape: (r) => ({ decimales: Number(r.decimales) }) },
  'codigos-postales': { catalog: 'c_CodigoPostal', title: 'c_CodigoPostal: look a code up for its estado, municipio and localidad', shape: postalCode },
  bancos: { catalog: 'c_Banco', title: 'c_Banco', shape: (r) => ({ razon_social: r.razon_social || undefined }) },
  'estados-nomina': { catalog: 'c_EstadoNomina', title: 'c_EstadoNomina (ClaveEntFed; key MEX|<estado> → give the estado)' },
  ...CARTA_PORTE,
  ...COMERCIO_EXTERIOR,
  ...RETENCIONES,
};

/** c_Colonia by código postal, built on first use from the engine's rows (not in the database: src/catalogs/seed.ts). */
let coloniasByCodigoPostal: Map<string, { clave: string; nombre: string }[]> | undefined;

/**
 * The colonias of a código postal (c_Colonia), for a Mexican Domicilio of Comercio Exterior. Read from the catalog
 * the engine loads rather than the database: 145,000 rows for one lookup by código postal (docs/decisions.md).
 */
export function listColonias(codigoPostal: string) {
  const cp = catalogEntry('c_CodigoPostal', codigoPostal);
  if (!cp) throw new ServiceError('not_found', `${codigoPostal} is not a key of c_CodigoPostal`, [{ field: 'codigo_postal', issue: 'not in c_CodigoPostal' }]);
  if (!coloniasByCodigoPostal) {
    coloniasByCodigoPostal = new Map();
    for (const row of catalogRows('c_Colonia')) {
      const list = coloniasByCodigoPostal.get(row.codigo_postal!) ?? [];
      list.push({ clave: row.colonia!, nombre: row.nombre_asentamiento! });
      coloniasByCodigoPostal.set(row.codigo_postal!, list);
    }
  }
  return {
    codigo_postal: codigoPostal,
    estado: cp.estado!,
    municipio: cp.municipio || undefined,
    data: coloniasByCodigoPostal.get(codigoPostal) ?? [],
  };
}

function postalCode(r: CatalogRow): Record<string, unknown> {
  const name = (catalog: CatalogName, key: string) => (key ? catalogEntry(catalog, key)?.descripcion : undefined);
  return {
    estado: { clave: r.estado, nombre: name('c_Estado', `MEX|${r.estado}`) ?? name('c_Estado', `${r.estado}`) },
    municipio: r.municipio ? { clave: r.municipio, nombre: name('c_Municipio', `${r.estado}|${r.municipio}`) } : undefined,
    localidad: r.localidad ? { clave: r.localidad, nombre: name('c_Localidad', `${r.estado}|${r.localidad}`) } : undefined,
    huso_horario: r.huso_horario,
    estimulo_franja_fronteriza: r.estimulo_franja_fronteriza,
  };
}

interface EntryRow {
  clave: string;
  descripcion: string | null;
  validFrom: string | null;
  validTo: string | null;
  data: CatalogRow;
}

const seeded = new WeakSet<object>();
/** The catalog tables are filled at start-up (src/index.ts); a database opened otherwise (tests, tools) is filled on first use. */
async function ready(db: Db): Promise<Db> {
  if (!seeded.has(db)) {
    await seedCatalogs(db);
    seeded.add(db);
  }
  return db;
}

/** Wire shape of a row: the key (without the country prefix of composite keys), description, validity, extras. */
function toWire(name: string, row: EntryRow) {
  const spec = CATALOGS[name]!;
  const data = row.data;
  const clave = row.clave.includes('|') ? row.clave.slice(row.clave.lastIndexOf('|') + 1) : row.clave;
  return { clave, descripcion: row.descripcion ?? '', ...spec.shape?.(data), vigencia: { desde: row.validFrom, hasta: row.validTo } };
}

/** Prefix of composite keys stored in catalog_entries (c_EstadoNomina is keyed by country and state). */
const keyPrefix = (catalog: CatalogName) => (catalog === 'c_EstadoNomina' ? 'MEX|' : '');

const p = sql.placeholder;
const entry = {
  clave: catalogEntries.clave,
  descripcion: catalogEntries.descripcion,
  validFrom: catalogEntries.validFrom,
  validTo: catalogEntries.validTo,
  data: catalogEntries.data,
};

/** Prepared: a page of search results reads each of its rows by key. */
const entryRow = async (db: Db, catalog: CatalogName, clave: string): Promise<EntryRow | undefined> =>
  (
    await prepared(db, 'catalogEntries.byKey', (d) =>
      d
        .select(entry)
        .from(catalogEntries)
        .where(and(eq(catalogEntries.catalog, p('catalog')), eq(catalogEntries.clave, p('clave'))))
        .prepare(),
    ).execute({ catalog, clave })
  )[0];

/** Rows of `catalog` after the key `after` whose key matches `pattern` (LIKE), by key; all of them without `limit`. */
async function entriesAfter(db: Db, catalog: CatalogName, after: string, pattern: string, limit?: number): Promise<EntryRow[]> {
  const where = and(eq(catalogEntries.catalog, p('catalog')), gt(catalogEntries.clave, p('after')), like(catalogEntries.clave, p('pattern')));
  const values = { catalog, after, pattern };
  if (limit === undefined)
    return prepared(db, 'catalogEntries.after', (d) => d.select(entry).from(catalogEntries).where(where).orderBy(asc(catalogEntries.clave)).prepare()).execute(
      values,
    );
  return prepared(db, 'catalogEntries.afterLimit', (d) =>
    d.select(entry).from(catalogEntries).where(where).orderBy(asc(catalogEntries.clave)).limit(p('limit')).prepare(),
  ).execute({ ...values, limit });
}

export async function getCatalogEntry(db: Db, name: string, clave: string) {
  const spec = CATALOGS[name]!;
  const row = await entryRow(await ready(db), spec.catalog, keyPrefix(spec.catalog) + clave);
  if (!row) throw new ServiceError('not_found', `${clave} is not a key of ${spec.catalog}`, [{ field: 'clave', issue: `not in ${spec.catalog}` }]);
  return toWire(name, row);
}

/**
 * Words of a search as terms, all required. A word of two or more characters is a prefix ("credito tarj" →
 * credito…, tarj…); a one-character word is a whole word ("vitamina c", "rayos x"): as a prefix it would match
 * up to half of the catalog. A word that another word extends adds nothing and is dropped ("de del de" → del…).
 */
function searchTerms(q: string): SearchTerm[] {
  const words = new Map<string, string>();
  for (const w of q.normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? []) if (!words.has(fold(w))) words.set(fold(w), w);
  const needed = [...words].filter(([f]) => f.length === 1 || ![...words.keys()].some((other) => other !== f && other.startsWith(f)));
  return needed.map(([f, word]) => ({ word, prefix: f.length > 1 }));
}

/**
 * The best matches a search ranks and pages through. Ranking every hit of a broad word ("de": 22,000 products)
 * cost a correlated scan per hit (minutes on the only JS thread); bm25 over the hits, capped, costs tens of ms.
 */
export const SEARCH_CANDIDATES = 2000;

const OFFSET = /^o:(\d{1,7})$/;

/**
 * Searches take turns, each after a pass of the event loop's I/O. One costs up to tens of ms on the only JS thread;
 * run back to back, a burst of 35 held /health for half a second. In turns, a request that arrives during the burst
 * waits for one search, not for all of them.
 */
let searchTail: Promise<unknown> = Promise.resolve();
function inTurn<T>(search: () => Promise<T>): Promise<T> {
  const turn = searchTail.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(search);
  searchTail = turn.catch(() => undefined);
  return turn;
}

/**
 * A page of a catalog. Without `q`: by key, keyset cursor. With `q`: keys starting with it (digits), or — for the
 * searchable catalogs — the SEARCH_CANDIDATES best word-index matches (bm25), those of a class whose own name matches
 * first (SAT's keys are hierarchical: 31161500 "Tornillos" heads 311615xx); elsewhere a case- and
 * accent-insensitive filter.
 */
export async function listCatalog(db: Db, name: string, q: { q?: string; limit: number; cursor?: string }) {
  const spec = CATALOGS[name]!;
  await ready(db);
  const prefix = keyPrefix(spec.catalog);
  const after = decodeCursor(q.cursor);
  const text = q.q?.trim();
  if (text && SEARCHABLE[spec.catalog] && !/^\d+$/.test(text)) {
    const terms = searchTerms(text);
    if (!terms.length) throw invalidInput('Invalid query', [{ field: 'q', issue: 'must contain at least one letter or digit' }]);
    const offset = after === undefined ? 0 : Number(OFFSET.exec(after)?.[1] ?? NaN);
    if (!Number.isInteger(offset)) throw invalidInput('Invalid cursor', [{ field: 'cursor', issue: 'is not a cursor returned by this API' }]);
    const hits = await inTurn(() => catalogQueries(db).search(db, spec.catalog, terms, SEARCH_CANDIDATES));
    const found = new Set(hits);
    const inFamily = (clave: string) => clave.length === 8 && found.has(`${clave.slice(0, 6)}00`);
    const ranked = [...hits.filter(inFamily), ...hits.filter((clave) => !inFamily(clave))];
    const rows: EntryRow[] = [];
    for (const clave of ranked.slice(offset, offset + q.limit + 1)) rows.push((await entryRow(db, spec.catalog, clave))!);
    return paged(name, rows, q.limit, () => `o:${offset + q.limit}`);
  }
  if (text && /^\d+$/.test(text)) {
    // Digits: keys that start with them (a product family, a postal code).
    const rows = await entriesAfter(db, spec.catalog, prefix + (after ?? ''), `${prefix}${text}%`, q.limit + 1);
    return paged(name, rows, q.limit, (last) => last.clave.slice(prefix.length));
  }
  if (text) {
    if (spec.catalog === 'c_CodigoPostal') throw invalidInput('Invalid query', [{ field: 'q', issue: 'postal codes are searched by their digits' }]);
    // A small catalog: its key, description or name (c_ClaveUnidadPeso names rows SAT leaves undescribed), case- and accent-insensitive.
    const folded = fold(text);
    const rows = (await entriesAfter(db, spec.catalog, prefix + (after ?? ''), `${prefix}%`)).filter(
      (r) => fold(r.clave.slice(prefix.length)).startsWith(folded) || fold(`${r.descripcion ?? ''}\n${r.data.nombre ?? ''}`).includes(folded),
    );
    return paged(name, rows.slice(0, q.limit + 1), q.limit, (last) => last.clave.slice(prefix.length));
  }
  const rows = await entriesAfter(db, spec.catalog, prefix + (after ?? ''), `${prefix}%`, q.limit + 1);
  return paged(name, rows, q.limit, (last) => last.clave.slice(prefix.length));
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

function paged(name: string, rows: EntryRow[], limit: number, next: (last: EntryRow) => string) {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return {
    data: items.map((r) => toWire(name, r)),
    pagination: more ? { has_more: true, next_cursor: encodeCursor(next(items[items.length - 1]!)), limit } : { has_more: false, limit },
  };
}
