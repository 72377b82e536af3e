import type { Fail } from '../../input.ts';
import type { CartaPorteInput } from './input.ts';
import { ID_CCP } from '../../patterns.ts';
import type { CartaPorteContext, CartaPorteModel } from './model.ts';
import { prepareAereo } from './rules/aereo.ts';
import { prepareAutotransporte } from './rules/autotransporte.ts';
import { AEREO, at, AUTO, type Checks, checks, FERROVIARIO, MARITIMO, type Modes, optDec, siNo } from './rules/common.ts';
import { prepareFerroviario } from './rules/ferroviario.ts';
import { prepareFiguras } from './rules/figuras.ts';
import { prepareMaritimo } from './rules/maritimo.ts';
import { type MercanciaContext, prepareMercancia, preparePesoBrutoTotal, preparePesoNetoTotal } from './rules/mercancias.ts';
import { prepareTotalDistRec, prepareUbicaciones } from './rules/ubicaciones.ts';

/**
 * Complemento Carta Porte 3.1: request → checked model (the node is in xml.ts). Pure. What SAT computes (IdCCP,
 * TotalDistRec, PesoBrutoTotal, PesoNetoTotal, NumTotalMercancias, PesoTara, ToneladasNetasCarro, IDUbicacion,
 * NombreEstacion) is computed here, and checked when the request sends it. Rule codes are those of SAT's Matriz de
 * errores del complemento Carta Porte 3.1 (CP101–CP204); a check without one is the XSD's or ours, and
 * docs/cartaporte31.md lists every check with its source.
 */

/** CP110: intermodal freight, which needs more than one transport section. */
const INTERMODAL = new Set(['78101900', '78101901', '78101902', '78101903', '78101904']);

/** CP109: the ClaveProdServ of the freight services an Ingreso with Carta Porte bills. */
const FLETES = new Set(
  (
    '78101500 78101501 78101502 78101503 78101600 78101601 78101602 78101603 78101604 78101700 78101701 78101702 78101703 ' +
    '78101704 78101705 78101706 78101800 78101801 78101802 78101803 78101804 78101806 78101807 78101900 78101901 78101902 ' +
    '78101903 78101904 78101905 78102200 78102201 78102203 78102204 78102205 78121603 78141500 78141501 84121806 92121800 ' +
    '92121801 92121802'
  ).split(' '),
);

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

/** International transport: direction, country, way in or out and customs regimes (CP116–CP124, CP169). */
function checkInternacional(req: CartaPorteInput, modes: Modes, c: Checks): { intl: boolean; regimenes: string[] } {
  const fail = c.fail;
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
  return { intl, regimenes };
}

/** Istmo de Tehuantepec: the development poles where the trip starts and ends (CP127). */
function checkIstmo(req: CartaPorteInput, c: Checks): void {
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

  const { intl, regimenes } = checkInternacional(req, modes, c);
  checkIstmo(req, c);

  const ubicaciones = prepareUbicaciones(req, modes, c);
  const totalDistRec = prepareTotalDistRec(req, ubicaciones, modes, c);

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

  const pesoBrutoTotal = preparePesoBrutoTotal(req, items, modes, c);

  const autotransporte = prepareAutotransporte(
    req,
    items.some((m) => m.materialPeligroso === 'Sí'),
    c,
  );
  const transporteMaritimo = prepareMaritimo(req, c);
  const transporteAereo = prepareAereo(req, c);
  const transporteFerroviario = prepareFerroviario(req, c);

  const pesoNetoTotal = preparePesoNetoTotal(req, items, transporteFerroviario, modes, c);
  if (!modes.auto)
    c.forbid(
      'logistica_inversa_recoleccion_devolucion',
      req.logistica_inversa_recoleccion_devolucion,
      'reverse logistics is for road transport (autotransporte)',
      'CP153',
    );
  if (!modes.aereo) c.forbid('cargo_por_tasacion', req.cargo_por_tasacion, 'the appraisal charge is for air transport only');

  const figuraTransporte = prepareFiguras(req, modes, ctx.emisorRfc, c);

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
