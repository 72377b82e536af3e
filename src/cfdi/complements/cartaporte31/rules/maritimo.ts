import type { CartaPorteInput } from '../input.ts';
import type { TransporteMaritimoModel } from '../model.ts';
import { at, checkPermiso, type Checks, dec, MARITIMO, optDec } from './common.ts';

/** Carta Porte 3.1, TransporteMaritimo: the vessel and its containers. */

/** c_ContenedorMaritimo CM011: a truck carried by ferry, identified by its own Carta Porte (CP186, CP187). */
const FERRI = 'CM011';

export function prepareMaritimo(req: CartaPorteInput, c: Checks): TransporteMaritimoModel | undefined {
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
