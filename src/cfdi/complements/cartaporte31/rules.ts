import { type CatalogName, type CatalogRow, catalogEntry, inForce } from '../../../catalogs/index.ts';
import { Dec, sum } from '../../decimal.ts';
import type { Fail } from '../../input.ts';
import type { CartaPorteInput, DomicilioCartaPorteInput, MercanciaInput, TipoFiguraInput } from './input.ts';
import { ID_CCP } from '../../patterns.ts';
import type {
  AutotransporteModel,
  CartaPorteContext,
  CartaPorteModel,
  DomicilioModel,
  MercanciaModel,
  TipoFiguraModel,
  TransporteAereoModel,
  TransporteFerroviarioModel,
  TransporteMaritimoModel,
  UbicacionModel,
} from './model.ts';

/**
 * Complemento Carta Porte 3.1: request → checked model (the node is in xml.ts). Pure. What SAT computes (IdCCP,
 * TotalDistRec, PesoBrutoTotal, PesoNetoTotal, NumTotalMercancias, PesoTara, ToneladasNetasCarro, IDUbicacion,
 * NombreEstacion) is computed here, and checked when the request sends it. Rule codes are those of SAT's Matriz de
 * errores del complemento Carta Porte 3.1 (CP101–CP204); a check without one is the XSD's or ours, and
 * docs/cartaporte31.md lists every check with its source.
 */

/** A foreign party's generic RFC: its tax id and country go in NumRegIdTrib / ResidenciaFiscal. */
const RFC_EXTRANJERO = 'XEXX010101000';
/** c_CveTransporte keys of the four transport sections. */
const AUTO = '01';
const MARITIMO = '02';
const AEREO = '03';
const FERROVIARIO = '04';
const MAX_DISTANCIA = Dec.parse('99999');
/** A PesoTara is at least 0.001 (CartaPorte31.xsd). */
const MIN_PESO = Dec.parse('0.001');
const KG_EN_TONELADAS = Dec.parse('0.001');

/** CP109: the ClaveProdServ of the freight services an Ingreso with Carta Porte bills. */
const FLETES = new Set(
  (
    '78101500 78101501 78101502 78101503 78101600 78101601 78101602 78101603 78101604 78101700 78101701 78101702 78101703 ' +
    '78101704 78101705 78101706 78101800 78101801 78101802 78101803 78101804 78101806 78101807 78101900 78101901 78101902 ' +
    '78101903 78101904 78101905 78102200 78102201 78102203 78102204 78102205 78121603 78141500 78141501 84121806 92121800 ' +
    '92121801 92121802'
  ).split(' '),
);
/** CP110: intermodal freight, which needs more than one transport section. */
const INTERMODAL = new Set(['78101900', '78101901', '78101902', '78101903', '78101904']);
/** CP177: a Traslado of packaging or pallets lists the tracking guides of what they carry. */
const CON_GUIAS = new Set(['31181701', '24112700']);

/** CP159–CP163: the fields each COFEPRIS sector needs; each is left out when the sector does not ask for it. */
const MEDICAMENTO: (keyof MercanciaInput)[] = [
  'denominacion_generica_prod',
  'denominacion_distintiva_prod',
  'fabricante',
  'fecha_caducidad',
  'lote_medicamento',
  'forma_farmaceutica',
  'condiciones_esp_transp',
  'registro_sanitario_folio_autorizacion',
];
const COFEPRIS: Record<string, { rule: string; fields: (keyof MercanciaInput)[] }> = {
  '01': { rule: 'CP159', fields: MEDICAMENTO },
  '02': {
    rule: 'CP160',
    fields: ['nombre_ingrediente_activo', 'nom_quimico', 'fabricante', 'fecha_caducidad', 'lote_medicamento', 'forma_farmaceutica', 'condiciones_esp_transp'],
  },
  '03': { rule: 'CP161', fields: MEDICAMENTO },
  '04': { rule: 'CP162', fields: ['nom_quimico', 'num_cas'] },
  '05': {
    rule: 'CP163',
    fields: ['nombre_ingrediente_activo', 'num_reg_san_plag_cofepris', 'datos_fabricante', 'datos_formulador', 'datos_maquilador', 'uso_autorizado'],
  },
};
const COFEPRIS_FIELDS = [...new Set(Object.values(COFEPRIS).flatMap((s) => s.fields))];
/** CP164–CP166: import data of a regulated product entering the country, by sector. */
const COFEPRIS_IMPORT: [keyof MercanciaInput, string[], string][] = [
  ['permiso_importacion', ['01', '02', '03'], 'CP164'],
  ['folio_impo_vucem', ['01', '02', '04', '05'], 'CP165'],
  ['razon_social_emp_imp', ['04'], 'CP166'],
];

const at = (path: string) => `carta_porte.${path}`;
const dec = (v: string) => Dec.parse(v);
const optDec = (v: string | undefined) => (v === undefined ? undefined : Dec.parse(v));
const siNo = (v: boolean) => (v ? 'Sí' : 'No');
const pad6 = (n: number) => String(n).padStart(6, '0');

interface Checks {
  day: string;
  fail: Fail;
  /** The row when `key` is in force in the catalog, else undefined. */
  row(name: CatalogName, key: string): CatalogRow | undefined;
  /** Reports `key` at `path` unless it is in force in the catalog; the row when it is. */
  catalog(path: string, name: CatalogName, key: string, rule?: string): CatalogRow | undefined;
  /** Reports a field the request must not send in this case. */
  forbid(path: string, value: unknown, why: string, rule?: string): void;
  /** Reports a field the request must send in this case. */
  need(path: string, value: unknown, why: string, rule?: string): void;
}

function checks(day: string, fail: Fail): Checks {
  const row = (name: CatalogName, key: string) => {
    const r = catalogEntry(name, key);
    return r && inForce(r, day) ? r : undefined;
  };
  return {
    day,
    fail,
    row,
    catalog(path, name, key, rule) {
      const r = row(name, key);
      if (!r) fail(at(path), `${key} is not a ${name} key in force on ${day}`, rule);
      return r;
    },
    forbid(path, value, why, rule) {
      if (value !== undefined) fail(at(path), `must not be sent: ${why}`, rule);
    },
    need(path, value, why, rule) {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) fail(at(path), `is required: ${why}`, rule);
    },
  };
}

/** The rule codes of a domicilio's checks: a Ubicacion's (CP143–CP147) or a figura's (CP200–CP204). */
const UBICACION_DOMICILIO = { localidad: 'CP144', municipio: 'CP145', estado: 'CP146', codigoPostal: 'CP147' };
const FIGURA_DOMICILIO = { localidad: 'CP201', municipio: 'CP202', estado: 'CP203', codigoPostal: 'CP204' };

/** A domicilio: its país from c_Pais; in Mexico its estado, código postal, municipio and localidad from SAT's catalogs and consistent. */
function prepareDomicilio(d: DomicilioCartaPorteInput, path: string, c: Checks, rules: typeof UBICACION_DOMICILIO): DomicilioModel {
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
  return {
    calle: d.calle,
    numeroExterior: d.numero_exterior,
    numeroInterior: d.numero_interior,
    colonia: d.colonia,
    localidad: d.localidad,
    referencia: d.referencia,
    municipio: d.municipio,
    estado: d.estado,
    pais: d.pais,
    codigoPostal: d.codigo_postal,
  };
}

/** A foreign tax residence: a c_Pais key other than MEX. */
function checkResidencia(c: Checks, path: string, pais: string, rule: string) {
  if (c.catalog(path, 'c_Pais', pais, rule) && pais === 'MEX') c.fail(at(path), 'must be a country other than MEX (a foreign tax residence)', rule);
}

interface Modes {
  auto: boolean;
  maritimo: boolean;
  aereo: boolean;
  ferroviario: boolean;
  /** c_CveTransporte keys of the sections sent. */
  keys: string[];
}

function prepareUbicaciones(req: CartaPorteInput, modes: Modes, c: Checks): UbicacionModel[] {
  const ubs = req.ubicaciones;
  const origenes = ubs.filter((u) => u.tipo_ubicacion === 'Origen').length;
  const destinos = ubs.length - origenes;
  if (origenes === 0) c.fail(at('ubicaciones'), 'need at least one Origen', modes.ferroviario ? 'CP128' : 'CP130');
  if (modes.ferroviario && destinos < 5)
    c.fail(at('ubicaciones'), `rail transport lists at least 5 Destino (the intermediate points and the final one), not ${destinos}`, 'CP129');
  else if (destinos === 0) c.fail(at('ubicaciones'), 'need at least one Destino', 'CP130');

  // IDUbicacion: as sent, or OR/DE and the position among the origins/destinations (OR000001, DE000001, DE000002, …).
  const counters = { Origen: 0, Destino: 0 };
  const ids = ubs.map((u) => u.id_ubicacion ?? `${u.tipo_ubicacion === 'Origen' ? 'OR' : 'DE'}${pad6(++counters[u.tipo_ubicacion])}`);
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const u = ubs[i]!;
    const prefix = u.tipo_ubicacion === 'Origen' ? 'OR' : 'DE';
    if (!id.startsWith(prefix)) c.fail(at(`ubicaciones[${i}].id_ubicacion`), `must start with ${prefix} on an ${u.tipo_ubicacion}`);
    const first = seen.get(id);
    if (first !== undefined)
      c.fail(
        at(`ubicaciones[${i}].id_ubicacion`),
        `${id} is already the id of ubicaciones[${first}] (defaults number the origins and the destinations in order)`,
      );
    else seen.set(id, i);
  });

  const stations = modes.maritimo || modes.aereo || modes.ferroviario;
  const stationModes = [modes.maritimo && MARITIMO, modes.aereo && AEREO, modes.ferroviario && FERROVIARIO].filter((k): k is string => !!k);
  const distances = modes.auto || modes.ferroviario;
  const first = ubs[0];
  if (first && first.tipo_ubicacion !== 'Origen')
    c.fail(at('ubicaciones[0].tipo_ubicacion'), 'the route starts at an Origen: list the ubicaciones in the order of the trip');
  return ubs.map((u, i): UbicacionModel => {
    const path = `ubicaciones[${i}]`;
    const origen = u.tipo_ubicacion === 'Origen';
    // The route in order: no departure or arrival before the previous one, every arrival after the first departure.
    const prev = ubs[i - 1];
    if (prev && u.fecha_hora_salida_llegada < prev.fecha_hora_salida_llegada) {
      c.fail(
        at(`${path}.fecha_hora_salida_llegada`),
        `${u.fecha_hora_salida_llegada} is before ubicaciones[${i - 1}].fecha_hora_salida_llegada (${prev.fecha_hora_salida_llegada}): list the ubicaciones in the order of the trip`,
      );
    } else if (!origen && first?.tipo_ubicacion === 'Origen' && u.fecha_hora_salida_llegada <= first.fecha_hora_salida_llegada) {
      c.fail(at(`${path}.fecha_hora_salida_llegada`), `a Destino is reached after the departure from the Origen (${first.fecha_hora_salida_llegada})`);
    }
    // A foreign sender or addressee (XEXX010101000) gives its tax id and country (CP133, CP134).
    if (u.rfc_remitente_destinatario === RFC_EXTRANJERO)
      c.need(`${path}.num_reg_id_trib`, u.num_reg_id_trib, `a foreign sender or addressee (RFC ${RFC_EXTRANJERO}) gives its tax id`, 'CP133');
    else c.forbid(`${path}.num_reg_id_trib`, u.num_reg_id_trib, `only a foreign party (RFC ${RFC_EXTRANJERO}) has a foreign tax id`, 'CP133');
    if (u.num_reg_id_trib !== undefined) c.need(`${path}.residencia_fiscal`, u.residencia_fiscal, 'a foreign tax id goes with its country', 'CP134');
    else c.forbid(`${path}.residencia_fiscal`, u.residencia_fiscal, 'it is the country of num_reg_id_trib, which is not sent', 'CP134');
    if (u.residencia_fiscal !== undefined) checkResidencia(c, `${path}.residencia_fiscal`, u.residencia_fiscal, 'CP134');

    // Stations: the ports, airports and rail stations of transport other than by road.
    let nombreEstacion = u.nombre_estacion;
    let foreignStation = false;
    if (modes.auto) {
      const why = 'by road there are no stations';
      c.forbid(`${path}.num_estacion`, u.num_estacion, why, 'CP135');
      c.forbid(`${path}.nombre_estacion`, u.nombre_estacion, why, 'CP137');
      c.forbid(`${path}.tipo_estacion`, u.tipo_estacion, why, 'CP140');
    } else if (stations) {
      c.need(`${path}.num_estacion`, u.num_estacion, 'maritime, air and rail transport go from station to station (c_Estaciones)', 'CP136');
      if (u.num_estacion !== undefined) {
        const e = c.catalog(`${path}.num_estacion`, 'c_Estaciones', u.num_estacion, 'CP136');
        if (e && !stationModes.includes(e.clave_transporte ?? ''))
          c.fail(
            at(`${path}.num_estacion`),
            `${u.num_estacion} is a station of transport ${e.clave_transporte}, not of the one sent (${stationModes.join(', ')})`,
            'CP136',
          );
        foreignStation = !!e && e.nacionalidad !== 'México';
        // A Mexican station is named as c_Estaciones names it; a foreign one by its own name (CP137, CP138).
        const catalogName = e?.descripcion?.slice(0, 50);
        if (e && !foreignStation && nombreEstacion !== undefined && nombreEstacion !== catalogName)
          c.fail(at(`${path}.nombre_estacion`), `must be the station's name in c_Estaciones (${catalogName}); leave it out to have it written`, 'CP137');
        nombreEstacion ??= catalogName;
      } else c.forbid(`${path}.nombre_estacion`, u.nombre_estacion, 'it names the station of num_estacion, which is not sent', 'CP137');
      if (foreignStation) c.forbid(`${path}.tipo_estacion`, u.tipo_estacion, 'a foreign station has no national station type', 'CP140');
      else
        c.need(
          `${path}.tipo_estacion`,
          u.tipo_estacion,
          'maritime, air and rail transport say what kind of station each ubicación is (c_TipoEstacion)',
          'CP140',
        );
      if (u.tipo_estacion !== undefined && c.catalog(`${path}.tipo_estacion`, 'c_TipoEstacion', u.tipo_estacion, 'CP140')) {
        if (origen && u.tipo_estacion === '03') c.fail(at(`${path}.tipo_estacion`), 'an Origen is not the final destination station (03)');
        if (!origen && u.tipo_estacion === '01') c.fail(at(`${path}.tipo_estacion`), 'a Destino is not the origin station (01)');
      }
    }
    if (modes.maritimo)
      c.need(`${path}.navegacion_trafico`, u.navegacion_trafico, 'maritime transport says whether each port is of Altura or Cabotaje', 'CP139');
    else c.forbid(`${path}.navegacion_trafico`, u.navegacion_trafico, 'it is for maritime transport only', 'CP139');

    // Distances: by road and rail, to each Destino from the previous point; none by sea or air (CP141).
    if (origen) c.forbid(`${path}.distancia_recorrida`, u.distancia_recorrida, 'the distance is recorded at each Destino, from the previous point', 'CP141');
    else if (distances)
      c.need(`${path}.distancia_recorrida`, u.distancia_recorrida, 'road and rail transport state the kilometres travelled to each Destino', 'CP141');
    else c.forbid(`${path}.distancia_recorrida`, u.distancia_recorrida, 'maritime and air documents carry no distances', 'CP141');
    const distancia = optDec(u.distancia_recorrida);
    if (distancia && distancia.cmp(MAX_DISTANCIA) > 0) c.fail(at(`${path}.distancia_recorrida`), 'must be at most 99999 km');

    // The address of every ubicación, but a rail line's intermediate stations (CP142).
    if (modes.ferroviario && u.tipo_estacion === '02')
      c.forbid(`${path}.domicilio`, u.domicilio, 'an intermediate rail station (tipo_estacion 02) has no address', 'CP142');
    else c.need(`${path}.domicilio`, u.domicilio, 'every origin and destination has its address', 'CP142');
    return {
      tipoUbicacion: u.tipo_ubicacion,
      idUbicacion: ids[i]!,
      rfcRemitenteDestinatario: u.rfc_remitente_destinatario,
      nombreRemitenteDestinatario: u.nombre_remitente_destinatario,
      numRegIdTrib: u.num_reg_id_trib,
      residenciaFiscal: u.residencia_fiscal,
      numEstacion: u.num_estacion,
      nombreEstacion: u.num_estacion === undefined ? undefined : nombreEstacion,
      navegacionTrafico: u.navegacion_trafico,
      fechaHoraSalidaLlegada: u.fecha_hora_salida_llegada,
      tipoEstacion: u.tipo_estacion,
      distanciaRecorrida: distancia,
      domicilio: u.domicilio && prepareDomicilio(u.domicilio, `${path}.domicilio`, c, UBICACION_DOMICILIO),
    };
  });
}

interface MercanciaContext {
  tipo: 'I' | 'T';
  /** International (TranspInternac Sí), and the direction. */
  intl: boolean;
  entrada: boolean;
  salida: boolean;
  modes: Modes;
  origenes: Set<string>;
  destinos: Set<string>;
  /** The CFDI's year's last two digits, the latest a pedimento can be of (CP174). */
  anio: string;
  conceptos: string[];
}

function prepareMercancia(m: MercanciaInput, i: number, ctx: MercanciaContext, c: Checks): MercanciaModel {
  const path = `mercancias[${i}]`;
  const { intl, modes } = ctx;

  // Hazardous goods: c_ClaveProdServCP's flag says whether the product is (1), may be (0,1) or is not (0) hazardous.
  // The shipper states it for 1 and 0,1 ("No" on a 1 key backed by a laboratory result, FAQ 53) and not for 0 (CP155).
  const producto = c.catalog(`${path}.bienes_transp`, 'c_ClaveProdServCP', m.bienes_transp);
  const flag = producto?.material_peligroso;
  if ((flag === '1' || flag === '0,1') && m.material_peligroso === undefined) {
    const what = flag === '1' ? 'is a hazardous material' : 'may or may not be a hazardous material';
    c.fail(
      at(`${path}.material_peligroso`),
      `is required: ${m.bienes_transp} ${what} in c_ClaveProdServCP (material peligroso ${flag}), so say whether it is`,
      'CP155',
    );
  }
  if (flag === '0')
    c.forbid(
      `${path}.material_peligroso`,
      m.material_peligroso,
      `${m.bienes_transp} is not a hazardous material in c_ClaveProdServCP (material peligroso 0)`,
      'CP155',
    );
  const peligroso = m.material_peligroso === true;
  if (peligroso) {
    c.need(`${path}.cve_material_peligroso`, m.cve_material_peligroso, 'hazardous goods name their material (c_MaterialPeligroso, NOM-002-SCT)', 'CP156');
    c.need(`${path}.embalaje`, m.embalaje, 'hazardous goods name their packaging (c_TipoEmbalaje)', 'CP157');
    // SAT's 3.1 sheet has 0119 where its schema has 119: a document with 0119 fails the XSD.
    if (m.cve_material_peligroso === '0119')
      c.fail(at(`${path}.cve_material_peligroso`), "0119 is in c_MaterialPeligroso but not in SAT's schema, which rejects it", 'CP156');
    else if (m.cve_material_peligroso !== undefined) c.catalog(`${path}.cve_material_peligroso`, 'c_MaterialPeligroso', m.cve_material_peligroso, 'CP156');
    if (m.embalaje !== undefined) c.catalog(`${path}.embalaje`, 'c_TipoEmbalaje', m.embalaje, 'CP157');
  } else {
    const why = 'the goods are not declared hazardous (material_peligroso true)';
    c.forbid(`${path}.cve_material_peligroso`, m.cve_material_peligroso, why, 'CP156');
    c.forbid(`${path}.embalaje`, m.embalaje, why, 'CP157');
    c.forbid(`${path}.descrip_embalaje`, m.descrip_embalaje, why);
  }

  c.catalog(`${path}.clave_unidad`, 'c_ClaveUnidad', m.clave_unidad);
  if (!modes.ferroviario) c.forbid(`${path}.clave_stcc`, m.clave_stcc, 'the STCC key is for rail transport only');

  // COFEPRIS: a regulated product states its sector and that sector's data, nothing of the others (CP158–CP166).
  const sector =
    m.sector_cofepris !== undefined && c.catalog(`${path}.sector_cofepris`, 'c_SectorCOFEPRIS', m.sector_cofepris, 'CP158') ? m.sector_cofepris : undefined;
  const cofepris = sector ? COFEPRIS[sector] : undefined;
  for (const f of COFEPRIS_FIELDS) {
    if (cofepris?.fields.includes(f)) c.need(`${path}.${f}`, m[f], `sector_cofepris ${sector} needs it`, cofepris.rule);
    else if (m.sector_cofepris === undefined) c.forbid(`${path}.${f}`, m[f], 'it describes a COFEPRIS-regulated product: send its sector_cofepris', 'CP159');
    else if (cofepris) c.forbid(`${path}.${f}`, m[f], `sector_cofepris ${sector} does not use it`, cofepris.rule);
  }
  for (const [f, sectores, rule] of COFEPRIS_IMPORT) {
    const applies = intl && ctx.entrada && sector !== undefined && sectores.includes(sector);
    const when = `a product of sector_cofepris ${sectores.join(', ')} entering the country (transp_internac true, entrada_salida_merc Entrada)`;
    if (applies) c.need(`${path}.${f}`, m[f], `${when} gives it`, rule);
    else c.forbid(`${path}.${f}`, m[f], `it is only for ${when}`, rule);
  }
  if (m.forma_farmaceutica !== undefined) c.catalog(`${path}.forma_farmaceutica`, 'c_FormaFarmaceutica', m.forma_farmaceutica);
  if (m.condiciones_esp_transp !== undefined) c.catalog(`${path}.condiciones_esp_transp`, 'c_CondicionesEspeciales', m.condiciones_esp_transp);

  // Value: by air always declared (CP167); an amount needs its currency (CP168).
  if (modes.aereo) c.need(`${path}.valor_mercancia`, m.valor_mercancia, 'air transport declares the value of the goods', 'CP167');
  if (m.valor_mercancia !== undefined) c.need(`${path}.moneda`, m.moneda, 'valor_mercancia is in a currency (c_Moneda)', 'CP168');
  else c.forbid(`${path}.moneda`, m.moneda, 'it is the currency of valor_mercancia, which is not sent');
  if (m.moneda !== undefined) c.catalog(`${path}.moneda`, 'c_Moneda', m.moneda, 'CP168');

  // Foreign trade: the state of the goods (CP170, CP171); the tariff fraction when given.
  if (intl) c.need(`${path}.tipo_materia`, m.tipo_materia, 'international transport states the state of the goods (c_TipoMateria)', 'CP170');
  else c.forbid(`${path}.tipo_materia`, m.tipo_materia, 'it is for international transport (transp_internac true)', 'CP170');
  if (m.tipo_materia !== undefined && c.catalog(`${path}.tipo_materia`, 'c_TipoMateria', m.tipo_materia, 'CP170') && m.tipo_materia === '05')
    c.need(`${path}.descripcion_materia`, m.descripcion_materia, 'tipo_materia 05 (Otra) is described', 'CP171');
  else c.forbid(`${path}.descripcion_materia`, m.descripcion_materia, 'it describes tipo_materia 05 (Otra)', 'CP171');
  if (m.fraccion_arancelaria !== undefined) c.catalog(`${path}.fraccion_arancelaria`, 'c_FraccionArancelaria', m.fraccion_arancelaria);

  // Customs documents: for goods entering the country, may go with goods leaving it, none inside it (CP172–CP176).
  if (intl && ctx.entrada)
    c.need(`${path}.documentacion_aduanera`, m.documentacion_aduanera, 'goods entering the country show their customs documents', 'CP172');
  else if (!intl) c.forbid(`${path}.documentacion_aduanera`, m.documentacion_aduanera, 'customs documents are for international transport', 'CP172');
  const documentacionAduanera = (m.documentacion_aduanera ?? []).map((d, j) => {
    const p = `${path}.documentacion_aduanera[${j}]`;
    c.catalog(`${p}.tipo_documento`, 'c_DocumentoAduanero', d.tipo_documento);
    if (d.tipo_documento === '01') {
      if (ctx.salida) c.fail(at(`${p}.tipo_documento`), 'goods leaving the country do not show an import pedimento (01)', 'CP173');
      c.need(`${p}.num_pedimento`, d.num_pedimento, 'tipo_documento 01 is a pedimento: give its number', 'CP174');
      c.forbid(`${p}.ident_doc_aduanero`, d.ident_doc_aduanero, 'a pedimento (01) is identified by num_pedimento', 'CP175');
    } else {
      c.need(`${p}.ident_doc_aduanero`, d.ident_doc_aduanero, 'a customs document other than a pedimento (01) is identified by its folio', 'CP175');
      c.forbid(`${p}.num_pedimento`, d.num_pedimento, 'only a pedimento (tipo_documento 01) has a num_pedimento', 'CP174');
    }
    if (d.num_pedimento !== undefined) {
      c.need(`${p}.rfc_impo`, d.rfc_impo, "a pedimento names the importer's RFC", 'CP176');
      const [anio, aduana] = [d.num_pedimento.slice(0, 2), d.num_pedimento.slice(4, 6)];
      if (anio > ctx.anio) c.fail(at(`${p}.num_pedimento`), `its year ${anio} is after the CFDI's (${ctx.anio})`, 'CP174');
      if (!c.row('c_Aduana', aduana)) c.fail(at(`${p}.num_pedimento`), `its aduana ${aduana} (characters 5–6) is not a c_Aduana key`, 'CP174');
    } else c.forbid(`${p}.rfc_impo`, d.rfc_impo, "the importer's RFC goes with a num_pedimento", 'CP176');
    return { tipoDocumento: d.tipo_documento, numPedimento: d.num_pedimento, identDocAduanero: d.ident_doc_aduanero, rfcImpo: d.rfc_impo };
  });

  // A Traslado of packaging or pallets lists the tracking guides of what they carry (CP177).
  if (ctx.tipo === 'T' && CON_GUIAS.has(m.bienes_transp) && ctx.conceptos.includes(m.bienes_transp))
    c.need(`${path}.guias_identificacion`, m.guias_identificacion, `a Traslado of ${m.bienes_transp} (empaques or estibas) lists the tracking guides`, 'CP177');

  // CantidadTransporta: how much goes from which origin to which destination (CP178–CP180), no more than is moved.
  const cantidad = dec(m.cantidad);
  const cantidadTransporta = (m.cantidad_transporta ?? []).map((t, j) => {
    const p = `${path}.cantidad_transporta[${j}]`;
    if (!ctx.origenes.has(t.id_origen)) c.fail(at(`${p}.id_origen`), `${t.id_origen} is not the id_ubicacion of an Origen`, 'CP178');
    if (!ctx.destinos.has(t.id_destino)) c.fail(at(`${p}.id_destino`), `${t.id_destino} is not the id_ubicacion of a Destino`, 'CP179');
    if (modes.keys.length > 1) c.need(`${p}.cves_transporte`, t.cves_transporte, 'with more than one transport, say which one carries this part', 'CP180');
    else c.forbid(`${p}.cves_transporte`, t.cves_transporte, 'there is only one transport', 'CP180');
    if (
      t.cves_transporte !== undefined &&
      c.catalog(`${p}.cves_transporte`, 'c_CveTransporte', t.cves_transporte, 'CP180') &&
      !modes.keys.includes(t.cves_transporte)
    )
      c.fail(at(`${p}.cves_transporte`), `${t.cves_transporte} is not a transport this Carta Porte describes (${modes.keys.join(', ')})`, 'CP180');
    return { cantidad: dec(t.cantidad), idOrigen: t.id_origen, idDestino: t.id_destino, cvesTransporte: t.cves_transporte };
  });
  const repartida = sum(cantidadTransporta.map((t) => t.cantidad));
  if (repartida.cmp(cantidad) > 0)
    c.fail(at(`${path}.cantidad_transporta`), `the cantidad values add up to ${repartida.toString()}, more than the cantidad moved (${m.cantidad})`);

  // DetalleMercancia: the weights of each mercancía by sea, and only there (CP181); the tara is their difference.
  if (modes.maritimo) c.need(`${path}.detalle_mercancia`, m.detalle_mercancia, 'maritime transport details the weights of each mercancía', 'CP181');
  else c.forbid(`${path}.detalle_mercancia`, m.detalle_mercancia, 'it is for maritime transport only', 'CP181');
  let detalleMercancia: MercanciaModel['detalleMercancia'];
  if (m.detalle_mercancia) {
    const d = m.detalle_mercancia;
    const p = `${path}.detalle_mercancia`;
    c.catalog(`${p}.unidad_peso_merc`, 'c_ClaveUnidadPeso', d.unidad_peso_merc);
    const pesoBruto = dec(d.peso_bruto);
    const pesoNeto = dec(d.peso_neto);
    const tara = pesoBruto.sub(pesoNeto);
    if (tara.cmp(MIN_PESO) < 0) c.fail(at(`${p}.peso_neto`), `must be less than peso_bruto (${d.peso_bruto}): the tara is their difference, at least 0.001`);
    if (d.peso_tara !== undefined && dec(d.peso_tara).cmp(tara) !== 0)
      c.fail(at(`${p}.peso_tara`), `must equal peso_bruto − peso_neto (${tara.toString()}); leave it out to have it computed`);
    detalleMercancia = { unidadPesoMerc: d.unidad_peso_merc, pesoBruto, pesoNeto, pesoTara: tara, numPiezas: d.num_piezas };
  }

  return {
    bienesTransp: m.bienes_transp,
    claveStcc: m.clave_stcc,
    descripcion: m.descripcion,
    cantidad,
    claveUnidad: m.clave_unidad,
    unidad: m.unidad,
    dimensiones: m.dimensiones,
    materialPeligroso: m.material_peligroso === undefined ? undefined : siNo(m.material_peligroso),
    cveMaterialPeligroso: m.cve_material_peligroso,
    embalaje: m.embalaje,
    descripEmbalaje: m.descrip_embalaje,
    sectorCofepris: m.sector_cofepris,
    nombreIngredienteActivo: m.nombre_ingrediente_activo,
    nomQuimico: m.nom_quimico,
    denominacionGenericaProd: m.denominacion_generica_prod,
    denominacionDistintivaProd: m.denominacion_distintiva_prod,
    fabricante: m.fabricante,
    fechaCaducidad: m.fecha_caducidad,
    loteMedicamento: m.lote_medicamento,
    formaFarmaceutica: m.forma_farmaceutica,
    condicionesEspTransp: m.condiciones_esp_transp,
    registroSanitarioFolioAutorizacion: m.registro_sanitario_folio_autorizacion,
    permisoImportacion: m.permiso_importacion,
    folioImpoVucem: m.folio_impo_vucem,
    numCas: m.num_cas,
    razonSocialEmpImp: m.razon_social_emp_imp,
    numRegSanPlagCofepris: m.num_reg_san_plag_cofepris,
    datosFabricante: m.datos_fabricante,
    datosFormulador: m.datos_formulador,
    datosMaquilador: m.datos_maquilador,
    usoAutorizado: m.uso_autorizado,
    pesoEnKg: dec(m.peso_en_kg),
    valorMercancia: optDec(m.valor_mercancia),
    moneda: m.moneda,
    fraccionArancelaria: m.fraccion_arancelaria,
    uuidComercioExt: m.uuid_comercio_ext?.toUpperCase(),
    tipoMateria: m.tipo_materia,
    descripcionMateria: m.descripcion_materia,
    documentacionAduanera,
    guiasIdentificacion: (m.guias_identificacion ?? []).map((g) => ({
      numeroGuiaIdentificacion: g.numero_guia_identificacion,
      descripGuiaIdentificacion: g.descrip_guia_identificacion,
      pesoGuiaIdentificacion: dec(g.peso_guia_identificacion),
    })),
    cantidadTransporta,
    detalleMercancia,
  };
}

/** The permit of a transport section is one SCT grants for that transport (c_TipoPermiso's clave_transporte). */
function checkPermiso(c: Checks, path: string, permSct: string, transporte: string) {
  const permiso = c.catalog(path, 'c_TipoPermiso', permSct);
  if (permiso && !(permiso.clave_transporte ?? '').split(',').includes(transporte))
    c.fail(at(path), `${permSct} is a permit for transport ${permiso.clave_transporte}, not for ${transporte}`);
}

function prepareAutotransporte(req: CartaPorteInput, peligroso: boolean, c: Checks): AutotransporteModel | undefined {
  const a = req.autotransporte;
  if (!a) return undefined;
  const path = 'autotransporte';
  checkPermiso(c, `${path}.perm_sct`, a.perm_sct, AUTO);
  const v = a.identificacion_vehicular;
  const config = c.catalog(`${path}.identificacion_vehicular.config_vehicular`, 'c_ConfigAutotransporte', v.config_vehicular);
  // c_ConfigAutotransporte's remolque column: 1 pulls a trailer, 0 does not, "0, 1" may (CP184).
  const remolque = config?.remolque?.replace(/\s/g, '');
  if (remolque === '1') c.need(`${path}.remolques`, a.remolques, `config_vehicular ${v.config_vehicular} pulls a trailer (c_ConfigAutotransporte)`, 'CP184');
  if (remolque === '0') c.forbid(`${path}.remolques`, a.remolques, `config_vehicular ${v.config_vehicular} pulls no trailer (c_ConfigAutotransporte)`, 'CP184');
  const remolques = (a.remolques ?? []).map((r, i) => {
    c.catalog(`${path}.remolques[${i}].sub_tipo_rem`, 'c_SubTipoRem', r.sub_tipo_rem);
    return { subTipoRem: r.sub_tipo_rem, placa: r.placa };
  });
  // Hazardous goods travel insured for environmental damage, and only they (CP182, CP183).
  const s = a.seguros;
  if (peligroso) c.need(`${path}.seguros.asegura_med_ambiente`, s.asegura_med_ambiente, 'hazardous goods travel insured for environmental damage', 'CP182');
  else
    c.forbid(
      `${path}.seguros.asegura_med_ambiente`,
      s.asegura_med_ambiente,
      'the environmental insurance is for hazardous goods (material_peligroso true)',
      'CP182',
    );
  if (s.asegura_med_ambiente !== undefined)
    c.need(`${path}.seguros.poliza_med_ambiente`, s.poliza_med_ambiente, 'the environmental insurer issues a policy', 'CP183');
  else c.forbid(`${path}.seguros.poliza_med_ambiente`, s.poliza_med_ambiente, 'it is the policy of asegura_med_ambiente, which is not sent', 'CP183');
  return {
    permSct: a.perm_sct,
    numPermisoSct: a.num_permiso_sct,
    identificacionVehicular: {
      configVehicular: v.config_vehicular,
      pesoBrutoVehicular: dec(v.peso_bruto_vehicular),
      placaVm: v.placa_vm,
      anioModeloVm: v.anio_modelo_vm,
    },
    seguros: {
      aseguraRespCivil: s.asegura_resp_civil,
      polizaRespCivil: s.poliza_resp_civil,
      aseguraMedAmbiente: s.asegura_med_ambiente,
      polizaMedAmbiente: s.poliza_med_ambiente,
      aseguraCarga: s.asegura_carga,
      polizaCarga: s.poliza_carga,
      primaSeguro: optDec(s.prima_seguro),
    },
    remolques,
  };
}

/** c_ContenedorMaritimo CM011: a truck carried by ferry, identified by its own Carta Porte (CP186, CP187). */
const FERRI = 'CM011';

function prepareMaritimo(req: CartaPorteInput, c: Checks): TransporteMaritimoModel | undefined {
  const t = req.transporte_maritimo;
  if (!t) return undefined;
  const path = 'transporte_maritimo';
  if ((t.perm_sct === undefined) !== (t.num_permiso_sct === undefined))
    c.fail(at(`${path}.${t.perm_sct === undefined ? 'perm_sct' : 'num_permiso_sct'}`), 'is required with the other permit field');
  if (t.perm_sct !== undefined) checkPermiso(c, `${path}.perm_sct`, t.perm_sct, MARITIMO);
  c.catalog(`${path}.tipo_embarcacion`, 'c_ConfigMaritima', t.tipo_embarcacion);
  // A foreign-flagged vessel sails on a temporary navigation permit (CP185).
  if (c.catalog(`${path}.nacionalidad_embarc`, 'c_Pais', t.nacionalidad_embarc)) {
    if (t.nacionalidad_embarc !== 'MEX')
      c.need(
        `${path}.permiso_temp_navegacion`,
        t.permiso_temp_navegacion,
        `a vessel of ${t.nacionalidad_embarc} sails on a temporary navigation permit`,
        'CP185',
      );
    else c.forbid(`${path}.permiso_temp_navegacion`, t.permiso_temp_navegacion, 'a Mexican vessel needs no temporary navigation permit', 'CP185');
  }
  c.catalog(`${path}.tipo_carga`, 'c_ClaveTipoCarga', t.tipo_carga);
  c.catalog(`${path}.num_autorizacion_naviero`, 'c_NumAutorizacionNaviero', t.num_autorizacion_naviero);
  const contenedores = (t.contenedores ?? []).map((k, i) => {
    const p = `${path}.contenedores[${i}]`;
    c.catalog(`${p}.tipo_contenedor`, 'c_ContenedorMaritimo', k.tipo_contenedor);
    if (k.tipo_contenedor === FERRI) {
      const why = 'a truck on a ferry (CM011) is identified by its own Carta Porte';
      c.forbid(`${p}.matricula_contenedor`, k.matricula_contenedor, why, 'CP186');
      c.forbid(`${p}.num_precinto`, k.num_precinto, why, 'CP186');
      c.need(`${p}.id_ccp_relacionado`, k.id_ccp_relacionado, `${why}: its IdCCP`, 'CP186');
      c.need(`${p}.placa_vm_ccp`, k.placa_vm_ccp, `${why}: the truck's plate`, 'CP186');
      c.need(`${p}.fecha_certificacion_ccp`, k.fecha_certificacion_ccp, `${why}: when it was stamped`, 'CP186');
    } else {
      const why = `it is for a truck on a ferry (tipo_contenedor CM011), not ${k.tipo_contenedor}`;
      c.need(`${p}.matricula_contenedor`, k.matricula_contenedor, 'a container is identified by its registration', 'CP186');
      c.need(`${p}.num_precinto`, k.num_precinto, 'a container carries its seal number', 'CP186');
      c.forbid(`${p}.id_ccp_relacionado`, k.id_ccp_relacionado, why, 'CP186');
      c.forbid(`${p}.placa_vm_ccp`, k.placa_vm_ccp, why, 'CP186');
      c.forbid(`${p}.fecha_certificacion_ccp`, k.fecha_certificacion_ccp, why, 'CP186');
      c.forbid(`${p}.remolques_ccp`, k.remolques_ccp, why, 'CP187');
    }
    return {
      tipoContenedor: k.tipo_contenedor,
      matriculaContenedor: k.matricula_contenedor,
      numPrecinto: k.num_precinto,
      idCcpRelacionado: k.id_ccp_relacionado?.toUpperCase(),
      placaVmCcp: k.placa_vm_ccp,
      fechaCertificacionCcp: k.fecha_certificacion_ccp,
      remolquesCcp: (k.remolques_ccp ?? []).map((r, j) => {
        c.catalog(`${p}.remolques_ccp[${j}].sub_tipo_rem_ccp`, 'c_SubTipoRem', r.sub_tipo_rem_ccp);
        return { subTipoRemCcp: r.sub_tipo_rem_ccp, placaCcp: r.placa_ccp };
      }),
    };
  });
  return {
    permSct: t.perm_sct,
    numPermisoSct: t.num_permiso_sct,
    nombreAseg: t.nombre_aseg,
    numPolizaSeguro: t.num_poliza_seguro,
    tipoEmbarcacion: t.tipo_embarcacion,
    matricula: t.matricula,
    numeroOmi: t.numero_omi,
    anioEmbarcacion: t.anio_embarcacion,
    nombreEmbarc: t.nombre_embarc,
    nacionalidadEmbarc: t.nacionalidad_embarc,
    unidadesDeArqBruto: dec(t.unidades_de_arq_bruto),
    tipoCarga: t.tipo_carga,
    eslora: optDec(t.eslora),
    manga: optDec(t.manga),
    calado: optDec(t.calado),
    puntal: optDec(t.puntal),
    lineaNaviera: t.linea_naviera,
    nombreAgenteNaviero: t.nombre_agente_naviero,
    numAutorizacionNaviero: t.num_autorizacion_naviero,
    numViaje: t.num_viaje,
    numConocEmbarc: t.num_conoc_embarc,
    permisoTempNavegacion: t.permiso_temp_navegacion,
    contenedores,
  };
}

function prepareAereo(req: CartaPorteInput, c: Checks): TransporteAereoModel | undefined {
  const t = req.transporte_aereo;
  if (!t) return undefined;
  const path = 'transporte_aereo';
  checkPermiso(c, `${path}.perm_sct`, t.perm_sct, AEREO);
  c.catalog(`${path}.codigo_transportista`, 'c_CodigoTransporteAereo', t.codigo_transportista);
  // The shipper: a Mexican RFC, or a foreign tax id with its country (CP189, CP190).
  if (t.rfc_embarcador === undefined)
    c.need(`${path}.num_reg_id_trib_embarc`, t.num_reg_id_trib_embarc, 'without rfc_embarcador the shipper is foreign and gives its tax id', 'CP189');
  else c.forbid(`${path}.num_reg_id_trib_embarc`, t.num_reg_id_trib_embarc, 'the shipper has an RFC (rfc_embarcador)', 'CP189');
  if (t.num_reg_id_trib_embarc !== undefined)
    c.need(`${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc, 'a foreign tax id goes with its country', 'CP190');
  else c.forbid(`${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc, 'it is the country of num_reg_id_trib_embarc, which is not sent', 'CP190');
  if (t.residencia_fiscal_embarc !== undefined) checkResidencia(c, `${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc, 'CP190');
  return {
    permSct: t.perm_sct,
    numPermisoSct: t.num_permiso_sct,
    matriculaAeronave: t.matricula_aeronave,
    nombreAseg: t.nombre_aseg,
    numPolizaSeguro: t.num_poliza_seguro,
    numeroGuia: t.numero_guia,
    lugarContrato: t.lugar_contrato,
    codigoTransportista: t.codigo_transportista,
    rfcEmbarcador: t.rfc_embarcador,
    numRegIdTribEmbarc: t.num_reg_id_trib_embarc,
    residenciaFiscalEmbarc: t.residencia_fiscal_embarc,
    nombreEmbarcador: t.nombre_embarcador,
  };
}

function prepareFerroviario(req: CartaPorteInput, c: Checks): TransporteFerroviarioModel | undefined {
  const t = req.transporte_ferroviario;
  if (!t) return undefined;
  const path = 'transporte_ferroviario';
  const servicio = c.catalog(`${path}.tipo_de_servicio`, 'c_TipoDeServicio', t.tipo_de_servicio);
  c.catalog(`${path}.tipo_de_trafico`, 'c_TipoDeTrafico', t.tipo_de_trafico);
  const derechosDePaso = (t.derechos_de_paso ?? []).map((d, i) => {
    c.catalog(`${path}.derechos_de_paso[${i}].tipo_derecho_de_paso`, 'c_DerechosDePaso', d.tipo_derecho_de_paso);
    return { tipoDerechoDePaso: d.tipo_derecho_de_paso, kilometrajePagado: dec(d.kilometraje_pagado) };
  });
  const carros = t.carros.map((k, i) => {
    const p = `${path}.carros[${i}]`;
    c.catalog(`${p}.tipo_carro`, 'c_TipoCarro', k.tipo_carro);
    // An intermodal service (c_TipoDeServicio contenedor 1: TS02, TS04) moves containers, the others do not (CP192).
    if (servicio?.contenedor === '1')
      c.need(`${p}.contenedores`, k.contenedores, `tipo_de_servicio ${t.tipo_de_servicio} is intermodal: list the containers`, 'CP192');
    if (servicio?.contenedor === '0') c.forbid(`${p}.contenedores`, k.contenedores, `tipo_de_servicio ${t.tipo_de_servicio} moves no containers`, 'CP192');
    const contenedores = (k.contenedores ?? []).map((x, j) => {
      c.catalog(`${p}.contenedores[${j}].tipo_contenedor`, 'c_Contenedor', x.tipo_contenedor);
      return { tipoContenedor: x.tipo_contenedor, pesoContenedorVacio: dec(x.peso_contenedor_vacio), pesoNetoMercancia: dec(x.peso_neto_mercancia) };
    });
    // With containers, the car's net tonnes are their goods' kilograms in tonnes (CP191).
    let toneladas = optDec(k.toneladas_netas_carro);
    if (contenedores.length) {
      const enContenedores = sum(contenedores.map((x) => x.pesoNetoMercancia))
        .mul(KG_EN_TONELADAS)
        .trim();
      if (enContenedores.decimals > 3)
        c.fail(
          at(`${p}.contenedores`),
          `the peso_neto_mercancia add up to ${enContenedores.toString()} t, more than the 3 decimals ToneladasNetasCarro has`,
          'CP191',
        );
      else if (toneladas && toneladas.cmp(enContenedores) !== 0)
        c.fail(
          at(`${p}.toneladas_netas_carro`),
          `must equal the containers' peso_neto_mercancia in tonnes (${enContenedores.toString()}); leave it out to have it computed`,
          'CP191',
        );
      toneladas ??= enContenedores;
    } else c.need(`${p}.toneladas_netas_carro`, k.toneladas_netas_carro, 'a car without containers states its net tonnes', 'CP191');
    return {
      tipoCarro: k.tipo_carro,
      matriculaCarro: k.matricula_carro,
      guiaCarro: k.guia_carro,
      toneladasNetasCarro: toneladas ?? Dec.ZERO,
      contenedores,
    };
  });
  return {
    tipoDeServicio: t.tipo_de_servicio,
    tipoDeTrafico: t.tipo_de_trafico,
    nombreAseg: t.nombre_aseg,
    numPolizaSeguro: t.num_poliza_seguro,
    derechosDePaso,
    carros,
  };
}

function prepareFigura(f: TipoFiguraInput, i: number, emisorRfc: string, c: Checks): TipoFiguraModel {
  const path = `figura_transporte[${i}]`;
  c.catalog(`${path}.tipo_figura`, 'c_FiguraTransporte', f.tipo_figura);
  // A figura with an RFC, or a foreign one with its tax id and country (CP195, CP197, CP198).
  if (f.rfc_figura === undefined)
    c.need(`${path}.num_reg_id_trib_figura`, f.num_reg_id_trib_figura, 'a figura without rfc_figura is foreign and gives its tax id', 'CP197');
  else c.forbid(`${path}.num_reg_id_trib_figura`, f.num_reg_id_trib_figura, 'the figura has an RFC (rfc_figura)', 'CP197');
  if (f.num_reg_id_trib_figura !== undefined)
    c.need(`${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura, 'a foreign tax id goes with its country', 'CP198');
  else c.forbid(`${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura, 'it is the country of num_reg_id_trib_figura, which is not sent', 'CP198');
  if (f.residencia_fiscal_figura !== undefined) checkResidencia(c, `${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura, 'CP198');
  // The operator drives with a licence (CP196); an owner or lessor names the parts that are theirs (CP199).
  if (f.tipo_figura === '01') c.need(`${path}.num_licencia`, f.num_licencia, "an operator (tipo_figura 01) gives the licence's number", 'CP196');
  else c.forbid(`${path}.num_licencia`, f.num_licencia, 'only an operator (tipo_figura 01) has a licence', 'CP196');
  const owner = f.tipo_figura === '02' || f.tipo_figura === '03';
  if (owner)
    c.need(`${path}.partes_transporte`, f.partes_transporte, 'an owner (02) or a lessor (03) names the parts of the transport that are theirs', 'CP199');
  else c.forbid(`${path}.partes_transporte`, f.partes_transporte, 'only an owner (02) or a lessor (03) names parts of the transport', 'CP199');
  (f.partes_transporte ?? []).forEach((p, j) => c.catalog(`${path}.partes_transporte[${j}]`, 'c_ParteTransporte', p, 'CP199'));
  // Owners and lessors are listed because the transport is not the issuer's own (CartaPorte31.xsd, FiguraTransporte).
  if (owner && f.rfc_figura === emisorRfc)
    c.fail(at(`${path}.rfc_figura`), "is the issuer's RFC: an owner (02) or a lessor (03) is listed when the transport belongs to someone else");
  return {
    tipoFigura: f.tipo_figura,
    rfcFigura: f.rfc_figura,
    numLicencia: f.num_licencia,
    nombreFigura: f.nombre_figura,
    numRegIdTribFigura: f.num_reg_id_trib_figura,
    residenciaFiscalFigura: f.residencia_fiscal_figura,
    partesTransporte: f.partes_transporte ?? [],
    domicilio: f.domicilio && prepareDomicilio(f.domicilio, `${path}.domicilio`, c, FIGURA_DOMICILIO),
  };
}

/** The CFDI that carries the complement: an Ingreso billing the freight, or a Traslado of one's own goods (CP103–CP111). */
function checkComprobante(req: CartaPorteInput, ctx: CartaPorteContext, modes: Modes, fail: Fail): void {
  const { comprobante: cfdi } = ctx;
  const bienes = new Set(req.mercancias.map((m) => m.bienes_transp));
  if (cfdi.tipo === 'T') {
    if (cfdi.moneda !== 'XXX') fail('moneda', 'must be XXX (or omitted) on a Traslado with Carta Porte', 'CP103');
    if (cfdi.receptorRfc !== ctx.emisorRfc)
      fail(`${cfdi.receptorField}.rfc`, `must be the issuer's RFC (${ctx.emisorRfc}): a Traslado with Carta Porte moves the issuer's own goods`, 'CP107');
    if (cfdi.usoCfdi !== 'S01') fail(`${cfdi.receptorField}.uso_cfdi`, 'must be S01 (sin efectos fiscales) on a Traslado with Carta Porte', 'CP111');
    // SAT: the Traslado's conceptos are the goods the complement describes, by the same key.
    cfdi.conceptos.forEach((clave, i) => {
      if (!bienes.has(clave))
        fail(`conceptos[${i}].clave_prod_serv`, `${clave} is not the bienes_transp of any carta_porte.mercancias: a Traslado lists the goods it moves`);
    });
  } else {
    cfdi.conceptos.forEach((clave, i) => {
      if (!FLETES.has(clave))
        fail(
          `conceptos[${i}].clave_prod_serv`,
          `${clave} is not a freight service: an Ingreso with Carta Porte bills transport (78101800, 78101500, …)`,
          'CP109',
        );
      else if (INTERMODAL.has(clave) && modes.keys.length < 2)
        fail(`conceptos[${i}].clave_prod_serv`, `${clave} is intermodal freight: describe more than one transport`, 'CP110');
    });
  }
}

/**
 * Checks the request against the rules it can be judged on (catalogs in force on the CFDI day) and builds the
 * model. Problems go to `fail`, all of them; the model is returned even then (the caller decides from its list).
 */
export function prepareCartaPorte(req: CartaPorteInput, ctx: CartaPorteContext, fail: Fail): CartaPorteModel {
  const c = checks(ctx.fecha.slice(0, 10), fail);
  const modes: Modes = {
    auto: !!req.autotransporte,
    maritimo: !!req.transporte_maritimo,
    aereo: !!req.transporte_aereo,
    ferroviario: !!req.transporte_ferroviario,
    keys: [],
  };
  modes.keys = [modes.auto && AUTO, modes.maritimo && MARITIMO, modes.aereo && AEREO, modes.ferroviario && FERROVIARIO].filter((k): k is string => !!k);
  if (modes.keys.length === 0)
    fail('carta_porte', 'needs its transport: autotransporte, transporte_maritimo, transporte_aereo or transporte_ferroviario', 'CP148');
  checkComprobante(req, ctx, modes, fail);

  const idCcp = (req.id_ccp ?? ctx.newIdCcp()).toUpperCase();
  if (idCcp && !ID_CCP.test(idCcp)) fail(at('id_ccp'), 'must be CCC followed by the last 33 characters of a UUID (CCCxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)');

  // International transport: direction, country, way in or out and customs regimes (CP116–CP124, CP169).
  const intl = req.transp_internac === true;
  const regimenes = req.regimenes_aduaneros ?? [];
  if (intl) {
    const why = 'international transport (transp_internac true)';
    c.need('entrada_salida_merc', req.entrada_salida_merc, `${why} says whether the goods enter or leave the country`, 'CP119');
    c.need('pais_origen_destino', req.pais_origen_destino, `${why} names the country the goods come from or go to`, 'CP121');
    c.need('via_entrada_salida', req.via_entrada_salida, `${why} says by which transport the goods enter or leave (c_CveTransporte)`, 'CP123');
    c.need('regimenes_aduaneros', req.regimenes_aduaneros, `${why} names the customs regimes of the goods (c_RegimenAduanero)`, 'CP116');
    if (
      req.pais_origen_destino !== undefined &&
      c.catalog('pais_origen_destino', 'c_Pais', req.pais_origen_destino, 'CP121') &&
      req.pais_origen_destino === 'MEX'
    )
      fail(at('pais_origen_destino'), 'must be the foreign country the goods come from or go to, not MEX');
    if (
      req.via_entrada_salida !== undefined &&
      c.catalog('via_entrada_salida', 'c_CveTransporte', req.via_entrada_salida, 'CP123') &&
      !modes.keys.includes(req.via_entrada_salida)
    )
      fail(at('via_entrada_salida'), `${req.via_entrada_salida} is not a transport this Carta Porte describes (${modes.keys.join(', ')})`, 'CP123');
    const seen = new Set<string>();
    const sentido = req.entrada_salida_merc;
    regimenes.forEach((r, i) => {
      const row = c.catalog(`regimenes_aduaneros[${i}]`, 'c_RegimenAduanero', r, 'CP117');
      if (seen.has(r)) fail(at(`regimenes_aduaneros[${i}]`), `${r} is listed twice`);
      seen.add(r);
      if (row && sentido && !(row.entrada_salida ?? '').split(',').includes(sentido))
        fail(
          at(`regimenes_aduaneros[${i}]`),
          `${r} is a regime for goods that ${row.entrada_salida === 'Entrada' ? 'enter' : 'leave'} the country, not ${sentido}`,
          sentido === 'Entrada' ? 'CP118' : 'CP169',
        );
    });
  } else {
    const why = 'the transport is national (transp_internac false)';
    c.forbid('entrada_salida_merc', req.entrada_salida_merc, why, 'CP120');
    c.forbid('pais_origen_destino', req.pais_origen_destino, why, 'CP122');
    c.forbid('via_entrada_salida', req.via_entrada_salida, why, 'CP124');
    c.forbid('regimenes_aduaneros', req.regimenes_aduaneros, why, 'CP116');
  }

  // Istmo de Tehuantepec: the development poles where the trip starts and ends (CP127).
  if (req.registro_istmo === true) {
    const why = 'registro_istmo true names the poles where the trip starts and ends (c_RegistroISTMO)';
    c.need('ubicacion_polo_origen', req.ubicacion_polo_origen, why, 'CP127');
    c.need('ubicacion_polo_destino', req.ubicacion_polo_destino, why, 'CP127');
    if (req.ubicacion_polo_origen !== undefined) c.catalog('ubicacion_polo_origen', 'c_RegistroISTMO', req.ubicacion_polo_origen, 'CP127');
    if (req.ubicacion_polo_destino !== undefined) c.catalog('ubicacion_polo_destino', 'c_RegistroISTMO', req.ubicacion_polo_destino, 'CP127');
  } else {
    const why = 'the poles are for a trip inside the Istmo de Tehuantepec (registro_istmo true)';
    c.forbid('ubicacion_polo_origen', req.ubicacion_polo_origen, why, 'CP127');
    c.forbid('ubicacion_polo_destino', req.ubicacion_polo_destino, why, 'CP127');
  }

  const ubicaciones = prepareUbicaciones(req, modes, c);
  // TotalDistRec: by road and rail, the sum of the distances to each destination (CP125, CP126).
  const distancias = ubicaciones.flatMap((u) => (u.distanciaRecorrida ? [u.distanciaRecorrida] : []));
  const totalDistRec = (modes.auto || modes.ferroviario) && distancias.length ? sum(distancias) : undefined;
  if (totalDistRec && totalDistRec.cmp(MAX_DISTANCIA) > 0)
    fail(at('ubicaciones'), `the distances add up to ${totalDistRec.toString()} km; TotalDistRec is at most 99999`, 'CP126');
  if (req.total_dist_rec !== undefined) {
    if (!modes.auto && !modes.ferroviario) fail(at('total_dist_rec'), 'must not be sent: maritime and air documents carry no distances', 'CP125');
    else if (totalDistRec && dec(req.total_dist_rec).cmp(totalDistRec) !== 0)
      fail(
        at('total_dist_rec'),
        `must equal the sum of the destinations' distancia_recorrida (${totalDistRec.toString()}); leave it out to have it computed`,
        'CP126',
      );
  }

  // Mercancías, and what is computed from them.
  const origenes = new Set(ubicaciones.filter((u) => u.tipoUbicacion === 'Origen').map((u) => u.idUbicacion));
  const destinos = new Set(ubicaciones.filter((u) => u.tipoUbicacion === 'Destino').map((u) => u.idUbicacion));
  const mctx: MercanciaContext = {
    tipo: ctx.comprobante.tipo,
    intl,
    entrada: intl && req.entrada_salida_merc === 'Entrada',
    salida: intl && req.entrada_salida_merc === 'Salida',
    modes,
    origenes,
    destinos,
    anio: ctx.fecha.slice(2, 4),
    conceptos: ctx.comprobante.conceptos,
  };
  const items = req.mercancias.map((m, i) => prepareMercancia(m, i, mctx, c));
  const unidadPeso = req.unidad_peso ?? 'KGM';
  c.catalog('unidad_peso', 'c_ClaveUnidadPeso', unidadPeso);
  if (req.num_total_mercancias !== undefined && req.num_total_mercancias !== items.length)
    fail(at('num_total_mercancias'), `must equal the number of mercancias (${items.length}); leave it out to have it computed`, 'CP154');

  // PesoBrutoTotal: the goods' estimated kilograms by road, air and rail (CP149), their gross weights by sea (CP150).
  const enKg = sum(items.map((m) => m.pesoEnKg));
  const brutoMaritimo = modes.maritimo ? sum(items.map((m) => m.detalleMercancia?.pesoBruto ?? Dec.ZERO)) : undefined;
  const pesoBrutoTotal = brutoMaritimo ?? enKg;
  if (brutoMaritimo && modes.keys.length > 1 && brutoMaritimo.cmp(enKg) !== 0)
    fail(
      at('mercancias'),
      `by sea and by other transport the peso_en_kg (${enKg.toString()}) and the detalle_mercancia.peso_bruto (${brutoMaritimo.toString()}) add up to the same PesoBrutoTotal`,
      'CP150',
    );
  if (req.peso_bruto_total !== undefined && dec(req.peso_bruto_total).cmp(pesoBrutoTotal) !== 0) {
    const what = modes.maritimo ? 'mercancias[].detalle_mercancia.peso_bruto' : 'mercancias[].peso_en_kg';
    fail(
      at('peso_bruto_total'),
      `must equal the sum of ${what} (${pesoBrutoTotal.toString()}); leave it out to have it computed`,
      modes.maritimo ? 'CP150' : 'CP149',
    );
  }

  const autotransporte = prepareAutotransporte(
    req,
    items.some((m) => m.materialPeligroso === 'Sí'),
    c,
  );
  const transporteMaritimo = prepareMaritimo(req, c);
  const transporteAereo = prepareAereo(req, c);
  const transporteFerroviario = prepareFerroviario(req, c);

  // PesoNetoTotal: the net weights by sea (CP151), the cars' net tonnes by rail (CP152), as sent otherwise.
  const netoMaritimo = modes.maritimo ? sum(items.map((m) => m.detalleMercancia?.pesoNeto ?? Dec.ZERO)) : undefined;
  const netoFerroviario = transporteFerroviario ? sum(transporteFerroviario.carros.map((k) => k.toneladasNetasCarro)) : undefined;
  if (netoMaritimo && netoFerroviario && netoMaritimo.cmp(netoFerroviario) !== 0)
    fail(
      at('mercancias'),
      `by sea and rail the detalle_mercancia.peso_neto (${netoMaritimo.toString()}) and the cars' toneladas_netas_carro (${netoFerroviario.toString()}) add up to the same PesoNetoTotal`,
      'CP152',
    );
  const pesoNetoTotal = netoMaritimo ?? netoFerroviario ?? optDec(req.peso_neto_total);
  if (req.peso_neto_total !== undefined && pesoNetoTotal && dec(req.peso_neto_total).cmp(pesoNetoTotal) !== 0) {
    const what = modes.maritimo ? 'mercancias[].detalle_mercancia.peso_neto' : 'transporte_ferroviario.carros[].toneladas_netas_carro';
    fail(
      at('peso_neto_total'),
      `must equal the sum of ${what} (${pesoNetoTotal.toString()}); leave it out to have it computed`,
      modes.maritimo ? 'CP151' : 'CP152',
    );
  }
  if (!modes.auto)
    c.forbid(
      'logistica_inversa_recoleccion_devolucion',
      req.logistica_inversa_recoleccion_devolucion,
      'reverse logistics is for road transport (autotransporte)',
      'CP153',
    );
  if (!modes.aereo) c.forbid('cargo_por_tasacion', req.cargo_por_tasacion, 'the appraisal charge is for air transport only');

  // Figuras: a truck is driven by an operator (CP193, CP194).
  const figuras = req.figura_transporte ?? [];
  if (modes.auto && !figuras.some((f) => f.tipo_figura === '01'))
    fail(
      at('figura_transporte'),
      'road transport (autotransporte) names its operator: a figura with tipo_figura 01 and num_licencia',
      figuras.length ? 'CP194' : 'CP193',
    );
  const figuraTransporte = figuras.map((f, i) => prepareFigura(f, i, ctx.emisorRfc, c));

  return {
    idCcp,
    transpInternac: siNo(intl),
    entradaSalidaMerc: intl ? req.entrada_salida_merc : undefined,
    paisOrigenDestino: intl ? req.pais_origen_destino : undefined,
    viaEntradaSalida: intl ? req.via_entrada_salida : undefined,
    totalDistRec,
    registroIstmo: req.registro_istmo ? 'Sí' : undefined,
    ubicacionPoloOrigen: req.registro_istmo ? req.ubicacion_polo_origen : undefined,
    ubicacionPoloDestino: req.registro_istmo ? req.ubicacion_polo_destino : undefined,
    regimenesAduaneros: intl ? regimenes : [],
    ubicaciones,
    mercancias: {
      pesoBrutoTotal,
      unidadPeso,
      pesoNetoTotal,
      numTotalMercancias: items.length,
      cargoPorTasacion: optDec(req.cargo_por_tasacion),
      logisticaInversaRecoleccionDevolucion: req.logistica_inversa_recoleccion_devolucion ? 'Sí' : undefined,
      items,
      autotransporte,
      transporteMaritimo,
      transporteAereo,
      transporteFerroviario,
    },
    figuraTransporte,
  };
}
