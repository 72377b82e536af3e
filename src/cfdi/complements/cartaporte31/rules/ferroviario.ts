import { Dec, sum } from '../../../decimal.ts';
import type { CartaPorteInput } from '../input.ts';
import type { TransporteFerroviarioModel } from '../model.ts';
import { at, type Checks, dec, optDec } from './common.ts';

/** Carta Porte 3.1, TransporteFerroviario: the service, rights of way and cars. */

const KG_EN_TONELADAS = Dec.parse('0.001');

export function prepareFerroviario(req: CartaPorteInput, c: Checks): TransporteFerroviarioModel | undefined {
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
