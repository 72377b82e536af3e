import { type Dec, sum } from '../../../decimal.ts';
import type { CartaPorteInput } from '../input.ts';
import type { UbicacionModel } from '../model.ts';
import {
  AEREO,
  at,
  checkResidencia,
  dec,
  type Checks,
  FERROVIARIO,
  MARITIMO,
  MAX_DISTANCIA,
  type Modes,
  optDec,
  prepareDomicilio,
  UBICACION_DOMICILIO,
} from './common.ts';

/** Carta Porte 3.1, Ubicaciones: where the goods leave and arrive, the distances and the IDUbicacion computed. */

const pad6 = (n: number) => String(n).padStart(6, '0');

/** A foreign party's generic RFC: its tax id and country go in NumRegIdTrib / ResidenciaFiscal. */
const RFC_EXTRANJERO = 'XEXX010101000';

export function prepareUbicaciones(req: CartaPorteInput, modes: Modes, c: Checks): UbicacionModel[] {
  const ubs = req.ubicaciones;
  const origenes = ubs.filter((u) => u.tipo_ubicacion === 'Origen').length;
  const destinos = ubs.length - origenes;
  if (origenes === 0) c.fail(at('ubicaciones'), 'need at least one Origen', modes.ferroviario ? 'CP128' : 'CP130');
  if (modes.ferroviario && destinos < 5)
    c.fail(at('ubicaciones'), `rail transport lists at least 5 Destino (the intermediate points and the final one), not ${destinos}`, 'CP129');
  else if (destinos === 0) c.fail(at('ubicaciones'), 'need at least one Destino', 'CP130');

  const ids = idsUbicacion(ubs, c);

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

    const nombreEstacion = prepareEstacion(u, path, origen, modes, stationModes, c);
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

/** IDUbicacion: as sent, or OR/DE and the position among the origins/destinations (OR000001, DE000001, DE000002, …). */
function idsUbicacion(ubs: CartaPorteInput['ubicaciones'], c: Checks): string[] {
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
  return ids;
}

/** Stations: the ports, airports and rail stations of transport other than by road; the NombreEstacion to write. */
function prepareEstacion(
  u: CartaPorteInput['ubicaciones'][number],
  path: string,
  origen: boolean,
  modes: Modes,
  stationModes: string[],
  c: Checks,
): string | undefined {
  const stations = modes.maritimo || modes.aereo || modes.ferroviario;
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
      c.need(`${path}.tipo_estacion`, u.tipo_estacion, 'maritime, air and rail transport say what kind of station each ubicación is (c_TipoEstacion)', 'CP140');
    if (u.tipo_estacion !== undefined && c.catalog(`${path}.tipo_estacion`, 'c_TipoEstacion', u.tipo_estacion, 'CP140')) {
      if (origen && u.tipo_estacion === '03') c.fail(at(`${path}.tipo_estacion`), 'an Origen is not the final destination station (03)');
      if (!origen && u.tipo_estacion === '01') c.fail(at(`${path}.tipo_estacion`), 'a Destino is not the origin station (01)');
    }
  }
  return nombreEstacion;
}

/** TotalDistRec: by road and rail, the sum of the distances to each destination (CP125, CP126). */
export function prepareTotalDistRec(req: CartaPorteInput, ubicaciones: UbicacionModel[], modes: Modes, c: Checks): Dec | undefined {
  const fail = c.fail;
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
  return totalDistRec;
}
