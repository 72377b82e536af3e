import type { RetencionComplement } from '../complement.ts';
import { renderPlataformas } from './pdf.ts';
import { PLATAFORMAS_TECNOLOGICAS_10 } from './cadena.ts';
import type { PlataformasTecnologicasInput } from './input.ts';
import type { PlataformasTecnologicasModel } from './model.ts';
import { preparePlataformas } from './rules.ts';
import { PLATAFORMAS_NS, plataformasNode } from './xml.ts';

/** GET's view: the computed totals, amounts as exact decimal text. */
interface PlataformasSummary {
  num_serv: number;
  mon_tot_serv_siva: string;
  total_iva_trasladado: string;
  total_iva_retenido: string;
  total_isr_retenido: string;
  dif_iva_entregado_prest_serv: string;
  mon_totalpor_uso_plataforma: string;
}

/**
 * Complemento de Servicios de Plataformas Tecnológicas 1.0: what a digital platform reports to each seller for a period,
 * the services one line each, its totals computed (./rules.ts).
 */
export const plataformastecnologicas10: RetencionComplement<
  'plataformas_tecnologicas',
  'plataformasTecnologicas',
  PlataformasTecnologicasInput,
  PlataformasTecnologicasModel,
  PlataformasSummary
> = {
  title: 'Servicios de Plataformas Tecnológicas',
  input: 'plataformas_tecnologicas',
  model: 'plataformasTecnologicas',
  element: `${PLATAFORMAS_NS.prefix}:ServiciosPlataformasTecnologicas`,
  prefix: PLATAFORMAS_NS.prefix,
  namespace: PLATAFORMAS_NS.uri,
  schemaLocation: PLATAFORMAS_NS.xsd,
  xsd: 'ServiciosPlataformasTecnologicas10.xsd',
  prepare: preparePlataformas,
  node: plataformasNode,
  pdf: renderPlataformas,
  cadena: PLATAFORMAS_TECNOLOGICAS_10,
  summary: (m) => ({
    num_serv: m.numServ,
    mon_tot_serv_siva: m.monTotServSiva.toString(),
    total_iva_trasladado: m.totalIvaTrasladado.toString(),
    total_iva_retenido: m.totalIvaRetenido.toString(),
    total_isr_retenido: m.totalIsrRetenido.toString(),
    dif_iva_entregado_prest_serv: m.difIvaEntregadoPrestServ.toString(),
    mon_totalpor_uso_plataforma: m.monTotalporUsoPlataforma.toString(),
  }),
};
