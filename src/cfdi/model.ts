import type { ComplementModels, ConceptoComplementModels } from './complements/index.ts';
import type { Dec } from './decimal.ts';

/** The invoice as it will be written: every amount final, exact, with the decimals it will carry in the XML. */
export interface TaxLine {
  base: Dec;
  impuesto: string;
  tipoFactor: string;
  tasaOCuota?: string;
  importe?: Dec;
}

export type ConceptoModel = ConceptoBaseModel & ConceptoComplementModels;

interface ConceptoBaseModel {
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

/** Its complements (`pagos`, `nomina`, `cartaPorte`, …) are the registry's (src/cfdi/complements/index.ts). */
export type ComprobanteModel = ComprobanteBaseModel & ComplementModels;

interface ComprobanteBaseModel {
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
}
