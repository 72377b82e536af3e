import { Dec, sum } from '../../../decimal.ts';
import type { CartaPorteInput, MercanciaInput } from '../input.ts';
import type { MercanciaModel, TransporteFerroviarioModel } from '../model.ts';
import { at, type Checks, dec, type Modes, optDec, siNo } from './common.ts';

/** Carta Porte 3.1, Mercancias/Mercancia: the goods moved, with their hazard, health (COFEPRIS) and customs data (CP148–CP177). */

/** CP177: a Traslado of packaging or pallets lists the tracking guides of what they carry. */
const CON_GUIAS = new Set(['31181701', '24112700']);

/** A PesoTara is at least 0.001 (CartaPorte31.xsd). */
const MIN_PESO = Dec.parse('0.001');

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

export interface MercanciaContext {
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

export function prepareMercancia(m: MercanciaInput, i: number, ctx: MercanciaContext, c: Checks): MercanciaModel {
  const path = `mercancias[${i}]`;
  const { intl, modes } = ctx;

  checkPeligroso(m, path, c);

  c.catalog(`${path}.clave_unidad`, 'c_ClaveUnidad', m.clave_unidad);
  if (!modes.ferroviario) c.forbid(`${path}.clave_stcc`, m.clave_stcc, 'the STCC key is for rail transport only');

  checkCofepris(m, path, ctx, c);

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

  const documentacionAduanera = prepareDocumentacionAduanera(m, path, ctx, c);

  // A Traslado of packaging or pallets lists the tracking guides of what they carry (CP177).
  if (ctx.tipo === 'T' && CON_GUIAS.has(m.bienes_transp) && ctx.conceptos.includes(m.bienes_transp))
    c.need(`${path}.guias_identificacion`, m.guias_identificacion, `a Traslado of ${m.bienes_transp} (empaques or estibas) lists the tracking guides`, 'CP177');

  const cantidad = dec(m.cantidad);
  const cantidadTransporta = prepareCantidadTransporta(m, path, cantidad, ctx, c);
  const detalleMercancia = prepareDetalleMercancia(m, path, modes, c);

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

/** Hazardous goods (CP155–CP157). */
function checkPeligroso(m: MercanciaInput, path: string, c: Checks): void {
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
}

/** COFEPRIS: a regulated product states its sector and that sector's data, nothing of the others (CP158–CP166). */
function checkCofepris(m: MercanciaInput, path: string, ctx: MercanciaContext, c: Checks): void {
  const { intl } = ctx;
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
}

/** Customs documents: for goods entering the country, may go with goods leaving it, none inside it (CP172–CP176). */
function prepareDocumentacionAduanera(m: MercanciaInput, path: string, ctx: MercanciaContext, c: Checks): MercanciaModel['documentacionAduanera'] {
  const { intl } = ctx;
  if (intl && ctx.entrada)
    c.need(`${path}.documentacion_aduanera`, m.documentacion_aduanera, 'goods entering the country show their customs documents', 'CP172');
  else if (!intl) c.forbid(`${path}.documentacion_aduanera`, m.documentacion_aduanera, 'customs documents are for international transport', 'CP172');
  return (m.documentacion_aduanera ?? []).map((d, j) => {
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
}

/** CantidadTransporta: how much goes from which origin to which destination (CP178–CP180), no more than is moved. */
function prepareCantidadTransporta(m: MercanciaInput, path: string, cantidad: Dec, ctx: MercanciaContext, c: Checks): MercanciaModel['cantidadTransporta'] {
  const { modes } = ctx;
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
  return cantidadTransporta;
}

/** DetalleMercancia: the weights of each mercancía by sea, and only there (CP181); the tara is their difference. */
function prepareDetalleMercancia(m: MercanciaInput, path: string, modes: Modes, c: Checks): MercanciaModel['detalleMercancia'] {
  if (modes.maritimo) c.need(`${path}.detalle_mercancia`, m.detalle_mercancia, 'maritime transport details the weights of each mercancía', 'CP181');
  else c.forbid(`${path}.detalle_mercancia`, m.detalle_mercancia, 'it is for maritime transport only', 'CP181');
  const d = m.detalle_mercancia;
  if (!d) return undefined;
  const p = `${path}.detalle_mercancia`;
  c.catalog(`${p}.unidad_peso_merc`, 'c_ClaveUnidadPeso', d.unidad_peso_merc);
  const pesoBruto = dec(d.peso_bruto);
  const pesoNeto = dec(d.peso_neto);
  const tara = pesoBruto.sub(pesoNeto);
  if (tara.cmp(MIN_PESO) < 0) c.fail(at(`${p}.peso_neto`), `must be less than peso_bruto (${d.peso_bruto}): the tara is their difference, at least 0.001`);
  if (d.peso_tara !== undefined && dec(d.peso_tara).cmp(tara) !== 0)
    c.fail(at(`${p}.peso_tara`), `must equal peso_bruto − peso_neto (${tara.toString()}); leave it out to have it computed`);
  return { unidadPesoMerc: d.unidad_peso_merc, pesoBruto, pesoNeto, pesoTara: tara, numPiezas: d.num_piezas };
}

/** PesoBrutoTotal: the goods' estimated kilograms by road, air and rail (CP149), their gross weights by sea (CP150). */
export function preparePesoBrutoTotal(req: CartaPorteInput, items: MercanciaModel[], modes: Modes, c: Checks): Dec {
  const fail = c.fail;
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
  return pesoBrutoTotal;
}

/** PesoNetoTotal: the net weights by sea (CP151), the cars' net tonnes by rail (CP152), as sent otherwise. */
export function preparePesoNetoTotal(
  req: CartaPorteInput,
  items: MercanciaModel[],
  transporteFerroviario: TransporteFerroviarioModel | undefined,
  modes: Modes,
  c: Checks,
): Dec | undefined {
  const fail = c.fail;
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
  return pesoNetoTotal;
}
