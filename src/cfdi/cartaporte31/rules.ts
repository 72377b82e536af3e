import { type CatalogName, type CatalogRow, catalogEntry, inForce } from '../../catalogs/index.ts';
import { Dec, sum } from '../decimal.ts';
import { ID_CCP } from '../patterns.ts';
import type { CartaPorteInput, DomicilioCartaPorteInput, Fail, MercanciaInput, TipoFiguraInput } from '../input.ts';
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
 * TotalDistRec, PesoBrutoTotal, PesoNetoTotal, NumTotalMercancias, PesoTara, IDUbicacion) is computed here, and
 * checked when the request sends it. Every rule, its source and its code are listed in docs/cartaporte31.md.
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

/** The fields each COFEPRIS sector needs (XSD annotations of Mercancia: which product each attribute describes). */
const COFEPRIS_FIELDS: Record<string, (keyof MercanciaInput)[]> = {
  // 01 Medicamento, 03 Psicotrópicos y estupefacientes.
  '01': [
    'denominacion_generica_prod',
    'denominacion_distintiva_prod',
    'fabricante',
    'fecha_caducidad',
    'lote_medicamento',
    'forma_farmaceutica',
    'condiciones_esp_transp',
    'registro_sanitario_folio_autorizacion',
  ],
  // 02 Precursores y químicos de uso dual.
  '02': ['nombre_ingrediente_activo', 'nom_quimico', 'fabricante', 'fecha_caducidad', 'lote_medicamento', 'forma_farmaceutica', 'condiciones_esp_transp'],
  // 04 Sustancias tóxicas.
  '04': ['nom_quimico', 'num_cas'],
  // 05 Plaguicidas y fertilizantes.
  '05': ['nombre_ingrediente_activo', 'num_reg_san_plag_cofepris', 'datos_fabricante', 'uso_autorizado'],
};
COFEPRIS_FIELDS['03'] = COFEPRIS_FIELDS['01']!;
const COFEPRIS_ONLY = new Set(Object.values(COFEPRIS_FIELDS).flat());

const at = (path: string) => `carta_porte.${path}`;
const dec = (v: string) => Dec.parse(v);
const optDec = (v: string | undefined) => (v === undefined ? undefined : Dec.parse(v));
const siNo = (v: boolean) => (v ? 'Sí' : 'No');
const pad6 = (n: number) => String(n).padStart(6, '0');

interface Checks {
  day: string;
  fail: Fail;
  /** The row when `key` is in force in the catalog, else undefined (reported by `catalog`). */
  row(name: CatalogName, key: string): CatalogRow | undefined;
  /** Reports `key` at `path` unless it is in force in the catalog; the row when it is. */
  catalog(path: string, name: CatalogName, key: string, rule?: string): CatalogRow | undefined;
  /** Reports a field that the request must not send in this case. */
  forbid(path: string, value: unknown, why: string, rule?: string): void;
  /** Reports a field that the request must send in this case. */
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

/** A domicilio: its país from c_Pais; in Mexico its estado, código postal, municipio and localidad from SAT's catalogs and consistent. */
function prepareDomicilio(d: DomicilioCartaPorteInput, path: string, c: Checks): DomicilioModel {
  const pais = c.catalog(`${path}.pais`, 'c_Pais', d.pais);
  // c_Estado lists the states of the countries SAT codes (MEX, USA, CAN); elsewhere the estado is free text.
  const coded = pais && ['MEX', 'USA', 'CAN'].includes(d.pais);
  if (coded && !c.row('c_Estado', `${d.pais}|${d.estado}`)) c.fail(at(`${path}.estado`), `${d.estado} is not a c_Estado key of ${d.pais}`);
  if (d.pais === 'MEX') {
    const cp = c.row('c_CodigoPostal', d.codigo_postal);
    if (!cp) c.fail(at(`${path}.codigo_postal`), `${d.codigo_postal} is not a c_CodigoPostal key in force on ${c.day}`);
    else if (cp.estado !== d.estado) c.fail(at(`${path}.codigo_postal`), `${d.codigo_postal} is in estado ${cp.estado}, not ${d.estado}`);
    if (d.municipio !== undefined) {
      if (!c.row('c_Municipio', `${d.estado}|${d.municipio}`)) c.fail(at(`${path}.municipio`), `${d.municipio} is not a c_Municipio key of ${d.estado}`);
      else if (cp?.municipio && cp.estado === d.estado && cp.municipio !== d.municipio)
        c.fail(at(`${path}.municipio`), `código postal ${d.codigo_postal} is in municipio ${cp.municipio}, not ${d.municipio}`);
    }
    if (d.localidad !== undefined) {
      if (!c.row('c_Localidad', `${d.estado}|${d.localidad}`)) c.fail(at(`${path}.localidad`), `${d.localidad} is not a c_Localidad key of ${d.estado}`);
      else if (cp?.localidad && cp.estado === d.estado && cp.localidad !== d.localidad)
        c.fail(at(`${path}.localidad`), `código postal ${d.codigo_postal} is in localidad ${cp.localidad}, not ${d.localidad}`);
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

/** A foreign party (generic RFC XEXX010101000) states its tax id and country; a Mexican one does not. */
function checkResidencia(
  c: Checks,
  rfc: string | undefined,
  numRegIdTrib: [string, string | undefined],
  residencia: [string, string | undefined],
  rule?: string,
): void {
  const foreign = rfc === undefined || rfc === RFC_EXTRANJERO;
  const [regPath, reg] = numRegIdTrib;
  const [resPath, res] = residencia;
  if (foreign) {
    const who = rfc === undefined ? 'without an RFC' : `with RFC ${RFC_EXTRANJERO}`;
    c.need(regPath, reg, `a foreign party (${who}) gives its tax id`, rule);
    c.need(resPath, res, `a foreign party (${who}) gives its country of tax residence`, rule);
  } else {
    c.forbid(regPath, reg, `only a foreign party (RFC ${RFC_EXTRANJERO}) has a foreign tax id`, rule);
    c.forbid(resPath, res, `only a foreign party (RFC ${RFC_EXTRANJERO}) has a foreign tax residence`, rule);
  }
  if (res !== undefined && c.catalog(resPath, 'c_Pais', res) && res === 'MEX')
    c.fail(at(resPath), 'must be a country other than MEX (a foreign tax residence)', rule);
}

interface Modes {
  auto: boolean;
  maritimo: boolean;
  aereo: boolean;
  ferroviario: boolean;
  /** c_CveTransporte keys of the sections sent. */
  keys: string[];
}

function prepareUbicaciones(req: CartaPorteInput, modes: Modes, c: Checks) {
  const ubs = req.ubicaciones;
  const origenes = ubs.filter((u) => u.tipo_ubicacion === 'Origen').length;
  const destinos = ubs.length - origenes;
  if (origenes === 0) c.fail(at('ubicaciones'), 'need at least one Origen');
  if (destinos === 0) c.fail(at('ubicaciones'), 'need at least one Destino');

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
      c.fail(at(`ubicaciones[${i}].id_ubicacion`), `${id} is already the id of ubicaciones[${first}] (defaults number origins and destinations in order)`);
    else seen.set(id, i);
  });

  const stations = !modes.auto && (modes.maritimo || modes.aereo || modes.ferroviario);
  const stationModes = [modes.maritimo && MARITIMO, modes.aereo && AEREO, modes.ferroviario && FERROVIARIO].filter((k): k is string => !!k);
  let lastDestino = -1;
  const ubicaciones = ubs.map((u, i): UbicacionModel => {
    const path = `ubicaciones[${i}]`;
    const origen = u.tipo_ubicacion === 'Origen';
    if (origen && lastDestino >= 0)
      c.fail(at(`${path}.tipo_ubicacion`), `an Origen must come before the destinations (ubicaciones[${lastDestino}] is a Destino): list the route in order`);
    if (!origen) lastDestino = i;
    // The route in order: each departure or arrival after the previous one.
    const prev = ubs[i - 1];
    if (prev && u.fecha_hora_salida_llegada <= prev.fecha_hora_salida_llegada) {
      c.fail(
        at(`${path}.fecha_hora_salida_llegada`),
        `${u.fecha_hora_salida_llegada} must be after ubicaciones[${i - 1}].fecha_hora_salida_llegada (${prev.fecha_hora_salida_llegada}): ubicaciones follow the route, each arrival after the departure`,
      );
    }
    checkResidencia(c, u.rfc_remitente_destinatario, [`${path}.num_reg_id_trib`, u.num_reg_id_trib], [`${path}.residencia_fiscal`, u.residencia_fiscal]);

    // Stations: ports, airports and rail stations, for transport other than by road.
    let nombreEstacion = u.nombre_estacion;
    if (stations) {
      c.need(`${path}.num_estacion`, u.num_estacion, 'maritime, air and rail transport go from station to station (c_Estaciones)');
      c.need(`${path}.tipo_estacion`, u.tipo_estacion, 'maritime, air and rail transport say what kind of station each ubicación is (c_TipoEstacion)');
    } else {
      c.forbid(`${path}.num_estacion`, u.num_estacion, 'stations are for maritime, air and rail transport only');
      c.forbid(`${path}.nombre_estacion`, u.nombre_estacion, 'stations are for maritime, air and rail transport only');
      c.forbid(`${path}.tipo_estacion`, u.tipo_estacion, 'stations are for maritime, air and rail transport only');
    }
    if (u.num_estacion !== undefined && stations) {
      const e = c.catalog(`${path}.num_estacion`, 'c_Estaciones', u.num_estacion);
      if (e && !stationModes.includes(e.clave_transporte ?? ''))
        c.fail(
          at(`${path}.num_estacion`),
          `${u.num_estacion} is a station of transport ${e.clave_transporte}, not of the one sent (${stationModes.join(', ')})`,
        );
      nombreEstacion ??= e?.descripcion?.slice(0, 50);
    }
    if (u.tipo_estacion !== undefined && stations && c.catalog(`${path}.tipo_estacion`, 'c_TipoEstacion', u.tipo_estacion)) {
      if (origen && u.tipo_estacion === '03') c.fail(at(`${path}.tipo_estacion`), 'an Origen cannot be the final destination station (03)');
      if (!origen && u.tipo_estacion === '01') c.fail(at(`${path}.tipo_estacion`), 'a Destino cannot be the origin station (01)');
    }
    if (modes.maritimo) c.need(`${path}.navegacion_trafico`, u.navegacion_trafico, 'maritime transport says whether the port is of Altura or Cabotaje');
    else c.forbid(`${path}.navegacion_trafico`, u.navegacion_trafico, 'it is for maritime transport only');

    // Distances are travelled to a destination; road transport states each one.
    if (origen) c.forbid(`${path}.distancia_recorrida`, u.distancia_recorrida, 'the distance is recorded at each Destino, from the previous point');
    else if (modes.auto) c.need(`${path}.distancia_recorrida`, u.distancia_recorrida, 'road transport states the kilometres travelled to each Destino');
    const distancia = optDec(u.distancia_recorrida);
    if (distancia && distancia.cmp(MAX_DISTANCIA) > 0) c.fail(at(`${path}.distancia_recorrida`), 'must be at most 99999 km');

    // The address: always by road; elsewhere except at an intermediate station.
    if (modes.auto || u.tipo_estacion !== '02')
      c.need(`${path}.domicilio`, u.domicilio, 'each origin and destination has its address (intermediate stations excepted)');
    return {
      tipoUbicacion: u.tipo_ubicacion,
      idUbicacion: ids[i]!,
      rfcRemitenteDestinatario: u.rfc_remitente_destinatario,
      nombreRemitenteDestinatario: u.nombre_remitente_destinatario,
      numRegIdTrib: u.num_reg_id_trib,
      residenciaFiscal: u.residencia_fiscal,
      numEstacion: stations ? u.num_estacion : undefined,
      nombreEstacion: stations ? nombreEstacion : undefined,
      navegacionTrafico: u.navegacion_trafico,
      fechaHoraSalidaLlegada: u.fecha_hora_salida_llegada,
      tipoEstacion: u.tipo_estacion,
      distanciaRecorrida: distancia,
      domicilio: u.domicilio && prepareDomicilio(u.domicilio, `${path}.domicilio`, c),
    };
  });
  return ubicaciones;
}

function prepareMercancia(
  m: MercanciaInput,
  i: number,
  ctx: { intl: boolean; entrada: boolean; modes: Modes; origenes: Set<string>; destinos: Set<string> },
  c: Checks,
): MercanciaModel {
  const path = `mercancias[${i}]`;
  const { intl, modes } = ctx;

  // Hazardous goods: c_ClaveProdServCP's flag says whether the product is (1), may be (0,1) or is not (0) hazardous.
  const producto = c.catalog(`${path}.bienes_transp`, 'c_ClaveProdServCP', m.bienes_transp);
  const flag = producto?.material_peligroso;
  if (flag === '1' && m.material_peligroso !== true)
    c.fail(at(`${path}.material_peligroso`), `must be true: ${m.bienes_transp} is a hazardous material in c_ClaveProdServCP (material peligroso 1)`);
  if (flag === '0,1' && m.material_peligroso === undefined)
    c.fail(at(`${path}.material_peligroso`), `is required: ${m.bienes_transp} may or may not be a hazardous material (c_ClaveProdServCP 0,1), so say which`);
  if (flag === '0' && m.material_peligroso === true)
    c.fail(at(`${path}.material_peligroso`), `must not be true: ${m.bienes_transp} is not a hazardous material in c_ClaveProdServCP (material peligroso 0)`);
  const peligroso = m.material_peligroso === true;
  if (peligroso) {
    c.need(`${path}.cve_material_peligroso`, m.cve_material_peligroso, 'hazardous goods name their material (c_MaterialPeligroso, NOM-002-SCT)');
    c.need(`${path}.embalaje`, m.embalaje, 'hazardous goods name their packaging (c_TipoEmbalaje)');
    if (m.cve_material_peligroso !== undefined) c.catalog(`${path}.cve_material_peligroso`, 'c_MaterialPeligroso', m.cve_material_peligroso);
    if (m.embalaje !== undefined) c.catalog(`${path}.embalaje`, 'c_TipoEmbalaje', m.embalaje);
  } else {
    const why = 'the goods are not declared hazardous (material_peligroso true)';
    c.forbid(`${path}.cve_material_peligroso`, m.cve_material_peligroso, why);
    c.forbid(`${path}.embalaje`, m.embalaje, why);
    c.forbid(`${path}.descrip_embalaje`, m.descrip_embalaje, why);
  }

  c.catalog(`${path}.clave_unidad`, 'c_ClaveUnidad', m.clave_unidad);
  if (!modes.ferroviario) c.forbid(`${path}.clave_stcc`, m.clave_stcc, 'the STCC key is for rail transport only');

  // COFEPRIS: a regulated product states its sector and that sector's data.
  if (m.sector_cofepris !== undefined && c.catalog(`${path}.sector_cofepris`, 'c_SectorCOFEPRIS', m.sector_cofepris)) {
    for (const f of COFEPRIS_FIELDS[m.sector_cofepris] ?? []) c.need(`${path}.${f}`, m[f], `sector_cofepris ${m.sector_cofepris} needs it`);
  } else if (m.sector_cofepris === undefined) {
    for (const f of COFEPRIS_ONLY) c.forbid(`${path}.${f}`, m[f], 'it describes a COFEPRIS-regulated product: send sector_cofepris too');
  }
  if (m.forma_farmaceutica !== undefined) c.catalog(`${path}.forma_farmaceutica`, 'c_FormaFarmaceutica', m.forma_farmaceutica);
  if (m.condiciones_esp_transp !== undefined) c.catalog(`${path}.condiciones_esp_transp`, 'c_CondicionesEspeciales', m.condiciones_esp_transp);

  // Value: an amount needs its currency.
  if (m.valor_mercancia !== undefined) c.need(`${path}.moneda`, m.moneda, 'valor_mercancia is in a currency (c_Moneda)');
  else c.forbid(`${path}.moneda`, m.moneda, 'it is the currency of valor_mercancia, which is not sent');
  if (m.moneda !== undefined) c.catalog(`${path}.moneda`, 'c_Moneda', m.moneda);

  // Foreign trade: the tariff fraction and the state of the goods; customs documents for goods from abroad.
  if (intl) {
    c.need(`${path}.fraccion_arancelaria`, m.fraccion_arancelaria, 'international transport classifies the goods (c_FraccionArancelaria)');
    c.need(`${path}.tipo_materia`, m.tipo_materia, 'international transport states the state of the goods (c_TipoMateria)');
  } else {
    c.forbid(`${path}.uuid_comercio_ext`, m.uuid_comercio_ext, 'a Comercio Exterior CFDI relates to international transport (transp_internac true)');
  }
  if (m.fraccion_arancelaria !== undefined) c.catalog(`${path}.fraccion_arancelaria`, 'c_FraccionArancelaria', m.fraccion_arancelaria);
  if (m.tipo_materia !== undefined && c.catalog(`${path}.tipo_materia`, 'c_TipoMateria', m.tipo_materia)) {
    if (m.tipo_materia === '05') c.need(`${path}.descripcion_materia`, m.descripcion_materia, 'tipo_materia 05 (Otra) is described');
    else c.forbid(`${path}.descripcion_materia`, m.descripcion_materia, 'it describes tipo_materia 05 (Otra)');
  } else if (m.tipo_materia === undefined) c.forbid(`${path}.descripcion_materia`, m.descripcion_materia, 'it describes tipo_materia 05 (Otra)');
  if (intl && ctx.entrada) c.need(`${path}.documentacion_aduanera`, m.documentacion_aduanera, 'goods entering the country show their customs documents');
  const documentacionAduanera = (m.documentacion_aduanera ?? []).map((d, j) => {
    const p = `${path}.documentacion_aduanera[${j}]`;
    c.catalog(`${p}.tipo_documento`, 'c_DocumentoAduanero', d.tipo_documento);
    if (d.tipo_documento === '01') {
      c.need(`${p}.num_pedimento`, d.num_pedimento, 'tipo_documento 01 is a pedimento: give its number');
      c.forbid(`${p}.ident_doc_aduanero`, d.ident_doc_aduanero, 'a pedimento (01) is identified by num_pedimento');
    } else {
      c.need(`${p}.ident_doc_aduanero`, d.ident_doc_aduanero, 'a customs document other than a pedimento (01) is identified by its folio');
      c.forbid(`${p}.num_pedimento`, d.num_pedimento, 'only a pedimento (tipo_documento 01) has a num_pedimento');
      c.forbid(`${p}.rfc_impo`, d.rfc_impo, "the importer's RFC is the one on a pedimento (tipo_documento 01)");
    }
    return { tipoDocumento: d.tipo_documento, numPedimento: d.num_pedimento, identDocAduanero: d.ident_doc_aduanero, rfcImpo: d.rfc_impo };
  });

  // CantidadTransporta: how much goes from which origin to which destination, adding up to the quantity.
  const cantidad = dec(m.cantidad);
  const cantidadTransporta = (m.cantidad_transporta ?? []).map((t, j) => {
    const p = `${path}.cantidad_transporta[${j}]`;
    if (!ctx.origenes.has(t.id_origen)) c.fail(at(`${p}.id_origen`), `${t.id_origen} is not the id_ubicacion of an Origen`);
    if (!ctx.destinos.has(t.id_destino)) c.fail(at(`${p}.id_destino`), `${t.id_destino} is not the id_ubicacion of a Destino`);
    if (t.cves_transporte !== undefined && c.catalog(`${p}.cves_transporte`, 'c_CveTransporte', t.cves_transporte) && !modes.keys.includes(t.cves_transporte))
      c.fail(at(`${p}.cves_transporte`), `${t.cves_transporte} is not a transport this Carta Porte describes (${modes.keys.join(', ')})`);
    if (modes.keys.length > 1) c.need(`${p}.cves_transporte`, t.cves_transporte, 'with more than one transport, say which one carries this part');
    return { cantidad: dec(t.cantidad), idOrigen: t.id_origen, idDestino: t.id_destino, cvesTransporte: t.cves_transporte };
  });
  if (cantidadTransporta.length && sum(cantidadTransporta.map((t) => t.cantidad)).cmp(cantidad) !== 0)
    c.fail(
      at(`${path}.cantidad_transporta`),
      `the cantidad values add up to ${sum(cantidadTransporta.map((t) => t.cantidad)).toString()}, not to the cantidad moved (${m.cantidad})`,
    );

  // DetalleMercancia: weights of the packed goods; the tara is the difference.
  if (modes.maritimo) c.need(`${path}.detalle_mercancia`, m.detalle_mercancia, 'maritime transport details the weights of each mercancía');
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

/** The permit of a transport section must be one SCT grants for that transport (c_TipoPermiso's clave_transporte). */
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
  // c_ConfigAutotransporte's remolque column: 1 pulls a trailer, 0 does not, "0, 1" may.
  const remolque = config?.remolque?.replace(/\s/g, '');
  if (remolque === '1') c.need(`${path}.remolques`, a.remolques, `config_vehicular ${v.config_vehicular} pulls a trailer (c_ConfigAutotransporte)`);
  if (remolque === '0') c.forbid(`${path}.remolques`, a.remolques, `config_vehicular ${v.config_vehicular} pulls no trailer (c_ConfigAutotransporte)`);
  const remolques = (a.remolques ?? []).map((r, i) => {
    c.catalog(`${path}.remolques[${i}].sub_tipo_rem`, 'c_SubTipoRem', r.sub_tipo_rem);
    return { subTipoRem: r.sub_tipo_rem, placa: r.placa };
  });
  const s = a.seguros;
  if (peligroso) {
    const why = 'hazardous goods travel insured for environmental damage';
    c.need(`${path}.seguros.asegura_med_ambiente`, s.asegura_med_ambiente, why);
    c.need(`${path}.seguros.poliza_med_ambiente`, s.poliza_med_ambiente, why);
  } else {
    const why = 'the environmental insurance is for hazardous goods (material_peligroso true)';
    c.forbid(`${path}.seguros.asegura_med_ambiente`, s.asegura_med_ambiente, why);
    c.forbid(`${path}.seguros.poliza_med_ambiente`, s.poliza_med_ambiente, why);
  }
  if ((s.asegura_carga === undefined) !== (s.poliza_carga === undefined))
    c.fail(at(`${path}.seguros.${s.asegura_carga === undefined ? 'asegura_carga' : 'poliza_carga'}`), 'is required with the other cargo insurance field');
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

const FERRI = new Set(['CM011', 'CM012']);

function prepareMaritimo(req: CartaPorteInput, c: Checks): TransporteMaritimoModel | undefined {
  const t = req.transporte_maritimo;
  if (!t) return undefined;
  const path = 'transporte_maritimo';
  if ((t.perm_sct === undefined) !== (t.num_permiso_sct === undefined))
    c.fail(at(`${path}.${t.perm_sct === undefined ? 'perm_sct' : 'num_permiso_sct'}`), 'is required with the other permit field');
  if (t.perm_sct !== undefined) checkPermiso(c, `${path}.perm_sct`, t.perm_sct, MARITIMO);
  c.catalog(`${path}.tipo_embarcacion`, 'c_ConfigMaritima', t.tipo_embarcacion);
  c.catalog(`${path}.nacionalidad_embarc`, 'c_Pais', t.nacionalidad_embarc);
  c.catalog(`${path}.tipo_carga`, 'c_ClaveTipoCarga', t.tipo_carga);
  c.catalog(`${path}.num_autorizacion_naviero`, 'c_NumAutorizacionNaviero', t.num_autorizacion_naviero);
  if (t.tipo_carga === 'CGC') c.need(`${path}.contenedores`, t.contenedores, 'containerised cargo (CGC) lists its containers');
  const contenedores = (t.contenedores ?? []).map((k, i) => {
    const p = `${path}.contenedores[${i}]`;
    c.catalog(`${p}.tipo_contenedor`, 'c_ContenedorMaritimo', k.tipo_contenedor);
    if (!FERRI.has(k.tipo_contenedor)) {
      const why = `it is for a truck carried by ferry (tipo_contenedor CM011 or CM012), not ${k.tipo_contenedor}`;
      c.forbid(`${p}.id_ccp_relacionado`, k.id_ccp_relacionado, why);
      c.forbid(`${p}.placa_vm_ccp`, k.placa_vm_ccp, why);
      c.forbid(`${p}.fecha_certificacion_ccp`, k.fecha_certificacion_ccp, why);
      c.forbid(`${p}.remolques_ccp`, k.remolques_ccp, why);
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
  // The shipper: a Mexican RFC, or a foreign tax id and country; neither when not stated.
  if (t.rfc_embarcador !== undefined || t.num_reg_id_trib_embarc !== undefined || t.residencia_fiscal_embarc !== undefined)
    checkResidencia(
      c,
      t.rfc_embarcador,
      [`${path}.num_reg_id_trib_embarc`, t.num_reg_id_trib_embarc],
      [`${path}.residencia_fiscal_embarc`, t.residencia_fiscal_embarc],
    );
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
  c.catalog(`${path}.tipo_de_servicio`, 'c_TipoDeServicio', t.tipo_de_servicio);
  c.catalog(`${path}.tipo_de_trafico`, 'c_TipoDeTrafico', t.tipo_de_trafico);
  const derechosDePaso = (t.derechos_de_paso ?? []).map((d, i) => {
    c.catalog(`${path}.derechos_de_paso[${i}].tipo_derecho_de_paso`, 'c_DerechosDePaso', d.tipo_derecho_de_paso);
    return { tipoDerechoDePaso: d.tipo_derecho_de_paso, kilometrajePagado: dec(d.kilometraje_pagado) };
  });
  const carros = t.carros.map((k, i) => {
    const p = `${path}.carros[${i}]`;
    const carro = c.catalog(`${p}.tipo_carro`, 'c_TipoCarro', k.tipo_carro);
    // c_TipoCarro's contenedor column: an intermodal platform (1) carries containers, other cars (0) do not.
    if (carro?.contenedor === '1') c.need(`${p}.contenedores`, k.contenedores, `tipo_carro ${k.tipo_carro} carries containers (c_TipoCarro)`);
    if (carro?.contenedor === '0') c.forbid(`${p}.contenedores`, k.contenedores, `tipo_carro ${k.tipo_carro} carries no containers (c_TipoCarro)`);
    return {
      tipoCarro: k.tipo_carro,
      matriculaCarro: k.matricula_carro,
      guiaCarro: k.guia_carro,
      toneladasNetasCarro: dec(k.toneladas_netas_carro),
      contenedores: (k.contenedores ?? []).map((x, j) => {
        c.catalog(`${p}.contenedores[${j}].tipo_contenedor`, 'c_Contenedor', x.tipo_contenedor);
        return { tipoContenedor: x.tipo_contenedor, pesoContenedorVacio: dec(x.peso_contenedor_vacio), pesoNetoMercancia: dec(x.peso_neto_mercancia) };
      }),
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

function prepareFigura(f: TipoFiguraInput, i: number, ctx: { modes: Modes; emisorRfc: string }, c: Checks): TipoFiguraModel {
  const path = `figura_transporte[${i}]`;
  const { modes } = ctx;
  c.catalog(`${path}.tipo_figura`, 'c_FiguraTransporte', f.tipo_figura);
  // An owner or lessor is listed because the transport is not the issuer's own.
  if ((f.tipo_figura === '02' || f.tipo_figura === '03') && f.rfc_figura === ctx.emisorRfc)
    c.fail(at(`${path}.rfc_figura`), `is the issuer's RFC: an owner (02) or lessor (03) is listed only when the transport belongs to someone else`);
  checkResidencia(
    c,
    f.rfc_figura,
    [`${path}.num_reg_id_trib_figura`, f.num_reg_id_trib_figura],
    [`${path}.residencia_fiscal_figura`, f.residencia_fiscal_figura],
  );
  if (f.tipo_figura === '01' && modes.auto)
    c.need(`${path}.num_licencia`, f.num_licencia, "a truck operator's licence number (tipo_figura 01 with autotransporte)");
  if (f.tipo_figura === '02' || f.tipo_figura === '03')
    c.need(
      `${path}.partes_transporte`,
      f.partes_transporte,
      `an ${f.tipo_figura === '02' ? 'owner' : 'lessor'} names the parts of the transport that are theirs (c_ParteTransporte)`,
    );
  else c.forbid(`${path}.partes_transporte`, f.partes_transporte, 'only an owner (02) or a lessor (03) names parts of the transport');
  (f.partes_transporte ?? []).forEach((p, j) => c.catalog(`${path}.partes_transporte[${j}]`, 'c_ParteTransporte', p));
  return {
    tipoFigura: f.tipo_figura,
    rfcFigura: f.rfc_figura,
    numLicencia: f.num_licencia,
    nombreFigura: f.nombre_figura,
    numRegIdTribFigura: f.num_reg_id_trib_figura,
    residenciaFiscalFigura: f.residencia_fiscal_figura,
    partesTransporte: f.partes_transporte ?? [],
    domicilio: f.domicilio && prepareDomicilio(f.domicilio, `${path}.domicilio`, c),
  };
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
  if (modes.keys.length === 0) fail('carta_porte', 'needs its transport: autotransporte, transporte_maritimo, transporte_aereo or transporte_ferroviario');

  const idCcp = (req.id_ccp ?? ctx.newIdCcp()).toUpperCase();
  if (idCcp && !ID_CCP.test(idCcp)) fail(at('id_ccp'), 'must be CCC followed by the last 33 characters of a UUID (CCCxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)');

  // International transport: direction, country, way in or out and customs regimes (at most 10, no repeats).
  const intl = req.transp_internac === true;
  const regimenes = req.regimenes_aduaneros ?? [];
  if (intl) {
    const why = 'international transport (transp_internac true)';
    c.need('entrada_salida_merc', req.entrada_salida_merc, `${why} says whether the goods enter or leave the country`);
    c.need('pais_origen_destino', req.pais_origen_destino, `${why} names the country the goods come from or go to`);
    c.need('via_entrada_salida', req.via_entrada_salida, `${why} says by which transport the goods enter or leave (c_CveTransporte)`);
    c.need('regimenes_aduaneros', req.regimenes_aduaneros, `${why} names the customs regimes of the goods (c_RegimenAduanero)`);
    if (req.pais_origen_destino !== undefined && c.catalog('pais_origen_destino', 'c_Pais', req.pais_origen_destino) && req.pais_origen_destino === 'MEX')
      fail(at('pais_origen_destino'), 'must be the foreign country the goods come from or go to, not MEX');
    if (req.via_entrada_salida !== undefined) c.catalog('via_entrada_salida', 'c_CveTransporte', req.via_entrada_salida);
    const seen = new Set<string>();
    regimenes.forEach((r, i) => {
      const row = c.catalog(`regimenes_aduaneros[${i}]`, 'c_RegimenAduanero', r);
      if (seen.has(r)) fail(at(`regimenes_aduaneros[${i}]`), `${r} is listed twice`);
      seen.add(r);
      const sentido = req.entrada_salida_merc;
      if (row && sentido && !(row.entrada_salida ?? '').split(',').includes(sentido))
        fail(
          at(`regimenes_aduaneros[${i}]`),
          `${r} is a regime for goods that ${row.entrada_salida === 'Entrada' ? 'enter' : 'leave'} (${row.entrada_salida}), not ${sentido}`,
        );
    });
  } else {
    const why = 'the transport is national (transp_internac false)';
    c.forbid('entrada_salida_merc', req.entrada_salida_merc, why);
    c.forbid('pais_origen_destino', req.pais_origen_destino, why);
    c.forbid('via_entrada_salida', req.via_entrada_salida, why);
    c.forbid('regimenes_aduaneros', req.regimenes_aduaneros, why);
  }

  // Istmo de Tehuantepec: the development poles where the trip starts and ends.
  if (req.registro_istmo === true) {
    const why = 'registro_istmo true names the poles where the trip starts and ends (c_RegistroISTMO)';
    c.need('ubicacion_polo_origen', req.ubicacion_polo_origen, why);
    c.need('ubicacion_polo_destino', req.ubicacion_polo_destino, why);
    if (req.ubicacion_polo_origen !== undefined) c.catalog('ubicacion_polo_origen', 'c_RegistroISTMO', req.ubicacion_polo_origen);
    if (req.ubicacion_polo_destino !== undefined) c.catalog('ubicacion_polo_destino', 'c_RegistroISTMO', req.ubicacion_polo_destino);
  } else {
    c.forbid('ubicacion_polo_origen', req.ubicacion_polo_origen, 'the poles are for a trip inside the Istmo de Tehuantepec (registro_istmo true)');
    c.forbid('ubicacion_polo_destino', req.ubicacion_polo_destino, 'the poles are for a trip inside the Istmo de Tehuantepec (registro_istmo true)');
  }

  const ubicaciones = prepareUbicaciones(req, modes, c);
  // TotalDistRec: the sum of the distances to each destination.
  const distancias = ubicaciones.flatMap((u) => (u.distanciaRecorrida ? [u.distanciaRecorrida] : []));
  const totalDistRec = distancias.length ? sum(distancias) : undefined;
  if (totalDistRec && totalDistRec.cmp(MAX_DISTANCIA) > 0)
    fail(at('ubicaciones'), `the distances add up to ${totalDistRec.toString()} km; TotalDistRec is at most 99999`);
  if (req.total_dist_rec !== undefined) {
    if (!totalDistRec) fail(at('total_dist_rec'), 'is the sum of the destinations’ distancia_recorrida, and none is sent');
    else if (dec(req.total_dist_rec).cmp(totalDistRec) !== 0)
      fail(at('total_dist_rec'), `must equal the sum of the destinations’ distancia_recorrida (${totalDistRec.toString()}); leave it out to have it computed`);
  }

  // Mercancías, and what is computed from them.
  const origenes = new Set(ubicaciones.filter((u) => u.tipoUbicacion === 'Origen').map((u) => u.idUbicacion));
  const destinos = new Set(ubicaciones.filter((u) => u.tipoUbicacion === 'Destino').map((u) => u.idUbicacion));
  const mctx = { intl, entrada: req.entrada_salida_merc === 'Entrada', modes, origenes, destinos };
  const items = req.mercancias.map((m, i) => prepareMercancia(m, i, mctx, c));
  const unidadPeso = req.unidad_peso ?? 'KGM';
  c.catalog('unidad_peso', 'c_ClaveUnidadPeso', unidadPeso);
  const pesoBrutoTotal = sum(items.map((m) => m.pesoEnKg));
  if (req.peso_bruto_total !== undefined && dec(req.peso_bruto_total).cmp(pesoBrutoTotal) !== 0)
    fail(at('peso_bruto_total'), `must equal the sum of mercancias[].peso_en_kg (${pesoBrutoTotal.toString()}); leave it out to have it computed`);
  const netos = items.flatMap((m) => (m.detalleMercancia ? [m.detalleMercancia.pesoNeto] : []));
  const pesoNetoTotal = netos.length ? sum(netos) : undefined;
  if (req.peso_neto_total !== undefined) {
    if (!pesoNetoTotal) fail(at('peso_neto_total'), 'is the sum of mercancias[].detalle_mercancia.peso_neto, and none is sent');
    else if (dec(req.peso_neto_total).cmp(pesoNetoTotal) !== 0)
      fail(
        at('peso_neto_total'),
        `must equal the sum of mercancias[].detalle_mercancia.peso_neto (${pesoNetoTotal.toString()}); leave it out to have it computed`,
      );
  }
  if (req.num_total_mercancias !== undefined && req.num_total_mercancias !== items.length)
    fail(at('num_total_mercancias'), `must equal the number of mercancias (${items.length}); leave it out to have it computed`);
  if (!modes.aereo) c.forbid('cargo_por_tasacion', req.cargo_por_tasacion, 'the appraisal charge is for air transport only');
  const peligroso = items.some((m) => m.materialPeligroso === 'Sí');

  const autotransporte = prepareAutotransporte(req, peligroso, c);
  const transporteMaritimo = prepareMaritimo(req, c);
  const transporteAereo = prepareAereo(req, c);
  const transporteFerroviario = prepareFerroviario(req, c);

  // Figuras: a truck is driven by an operator (01).
  const figuras = req.figura_transporte ?? [];
  if (modes.auto && !figuras.some((f) => f.tipo_figura === '01'))
    fail(at('figura_transporte'), 'road transport (autotransporte) names its operator: a figura with tipo_figura 01 and num_licencia');
  const figuraTransporte = figuras.map((f, i) => prepareFigura(f, i, { modes, emisorRfc: ctx.emisorRfc }, c));

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
