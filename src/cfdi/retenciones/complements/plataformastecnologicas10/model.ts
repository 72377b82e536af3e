import type { Dec } from '../../../decimal.ts';

export interface ServicioModel {
  formaPagoServ: string;
  tipoDeServ: string;
  subTipServ?: string;
  rfcTerceroAutorizado?: string;
  fechaServ: string;
  precioServSinIva: Dec;
  traslado?: { base: Dec; impuesto: string; tasaCuota: Dec; importe: Dec };
  contribucion?: { impContrib: Dec; entidad: string };
  comision?: { base?: Dec; porcentaje?: Dec; importe: Dec };
}

/** The complement as it will be written: its totals computed from the services and the document's ImpRetenidos. */
export interface PlataformasTecnologicasModel {
  periodicidad: string;
  numServ: number;
  monTotServSiva: Dec;
  totalIvaTrasladado: Dec;
  totalIvaRetenido: Dec;
  totalIsrRetenido: Dec;
  difIvaEntregadoPrestServ: Dec;
  monTotalporUsoPlataforma: Dec;
  monTotalContribucionGubernamental?: Dec;
  servicios: ServicioModel[];
}
