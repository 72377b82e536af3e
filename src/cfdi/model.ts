import type { CartaPorteModel } from './cartaporte31/model.ts';
import type { Dec } from './decimal.ts';
import type { NominaModel } from './nomina12/model.ts';
import type { PagosModel } from './pagos20/model.ts';

/** The invoice as it will be written: every amount final, exact, with the decimals it will carry in the XML. */
export interface TaxLine {
  base: Dec;
  impuesto: string;
  tipoFactor: string;
  tasaOCuota?: string;
  importe?: Dec;
}

export interface ConceptoModel {
  claveProdServ: string;
  noIdentificacion?: string;
  cantidad: Dec;
  claveUnidad: string;
  unidad?: string;
  descripcion: string;
  valorUnitario: Dec;
  importe: Dec;
  descuento?: Dec;
  objetoImp: string;
  traslados: TaxLine[];
  retenciones: TaxLine[];
  aCuentaTerceros?: { rfc: string; nombre: string; regimenFiscal: string; domicilioFiscal: string };
}

export interface ReceptorModel {
  rfc: string;
  nombre: string;
  domicilioFiscal: string;
  residenciaFiscal?: string;
  numRegIdTrib?: string;
  regimenFiscal: string;
  usoCfdi: string;
}

interface EmisorModel {
  rfc: string;
  nombre: string;
  regimenFiscal: string;
}

export interface ComprobanteModel {
  serie?: string;
  folio?: string;
  fecha: string;
  formaPago?: string;
  condicionesDePago?: string;
  subTotal: Dec;
  descuento?: Dec;
  moneda: string;
  tipoCambio?: string;
  total: Dec;
  tipo: 'I' | 'E' | 'T' | 'N' | 'P';
  exportacion: string;
  metodoPago?: string;
  lugarExpedicion: string;
  informacionGlobal?: { periodicidad: string; meses: string; anio: string };
  relacionados: { tipoRelacion: string; uuids: string[] }[];
  emisor: EmisorModel;
  receptor: ReceptorModel;
  conceptos: ConceptoModel[];
  impuestos?: {
    retenciones: { impuesto: string; importe: Dec }[];
    traslados: TaxLine[];
    totalRetenidos?: Dec;
    totalTrasladados?: Dec;
  };
  /** Complemento de Pagos 2.0 (tipo P). */
  pagos?: PagosModel;
  /** Complemento de Nómina 1.2 (tipo N). */
  nomina?: NominaModel;
  /** Complemento Carta Porte 3.1 (tipo T or I). */
  cartaPorte?: CartaPorteModel;
}
