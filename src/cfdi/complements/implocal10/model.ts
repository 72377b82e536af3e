import type { Dec } from '../../decimal.ts';
import type { TipoDeComprobante } from '../../input.ts';

/** The complement as it will be written: every amount final and exact, with two decimals. */
interface RetencionLocalModel {
  impLocRetenido: string;
  tasadeRetencion: Dec;
  importe: Dec;
}

interface TrasladoLocalModel {
  impLocTrasladado: string;
  tasadeTraslado: Dec;
  importe: Dec;
}

export interface ImpuestosLocalesModel {
  retenciones: RetencionLocalModel[];
  traslados: TrasladoLocalModel[];
  totaldeRetenciones: Dec;
  totaldeTraslados: Dec;
}

/** What the complement needs of the prepared comprobante. */
export interface ImpuestosLocalesContext {
  tipo: TipoDeComprobante;
  subTotal: Dec;
  descuento?: Dec;
  /**
   * The comprobante's Total before the local taxes (SubTotal − Descuento + federal traslados − federal retenciones),
   * when known: the registry's prepare runs before the totals, and its adjustTotals checks the Total instead.
   */
  total?: Dec;
}
