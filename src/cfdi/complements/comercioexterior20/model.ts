import type { Dec } from '../../decimal.ts';
import type { TipoDeComprobante } from '../../input.ts';
import type { DomicilioModel } from '../domicilio.ts';
import type { DomicilioComercioExteriorInput } from './input.ts';

/** The complement as it will be written: every amount final and exact, with the decimals it will carry in the XML. */
export interface DomicilioComercioExteriorModel extends DomicilioModel {
  calle: string;
}

export interface MercanciaComercioExteriorModel {
  noIdentificacion: string;
  fraccionArancelaria?: string;
  cantidadAduana?: Dec;
  unidadAduana?: string;
  valorUnitarioAduana?: Dec;
  valorDolares: Dec;
  descripcionesEspecificas: { marca: string; modelo?: string; subModelo?: string; numeroSerie?: string }[];
}

export interface ComercioExteriorModel {
  motivoTraslado?: string;
  claveDePedimento: string;
  certificadoOrigen: '0' | '1';
  numCertificadoOrigen?: string;
  numeroExportadorConfiable?: string;
  incoterm?: string;
  observaciones?: string;
  tipoCambioUSD: Dec;
  totalUSD: Dec;
  emisor: { curp?: string; domicilio: DomicilioComercioExteriorModel };
  propietarios: { numRegIdTrib: string; residenciaFiscal: string }[];
  receptor?: { numRegIdTrib?: string; domicilio?: DomicilioComercioExteriorModel };
  destinatarios: { numRegIdTrib?: string; nombre?: string; domicilios: DomicilioComercioExteriorModel[] }[];
  mercancias: MercanciaComercioExteriorModel[];
}

/** A concepto of the prepared comprobante, as the complement's rules read it. */
export interface ConceptoComercioExterior {
  noIdentificacion?: string;
  cantidad: Dec;
  claveUnidad: string;
  valorUnitario: Dec;
  importe: Dec;
  descuento?: Dec;
}

/** What the complement needs of the prepared comprobante and of the issuer. */
export interface ComercioExteriorContext {
  tipo: TipoDeComprobante;
  exportacion: string;
  moneda: string;
  /** The comprobante's TipoCambio (absent on MXN and XXX). */
  tipoCambio?: string;
  /** The comprobante's day, YYYY-MM-DD: catalogs are read as in force on it. */
  fecha: string;
  emisor: { rfc: string; domicilio?: DomicilioComercioExteriorInput };
  receptor: { rfc: string; residenciaFiscal?: string; numRegIdTrib?: string };
  /** Where a receptor problem is reported: `receptor` (default) or `receptor_id` (a stored client). */
  receptorField?: string;
  conceptos: ConceptoComercioExterior[];
  /** The CfdiRelacionados (MotivoTraslado 01 relates the invoices it ships, TipoRelacion 05). */
  relacionados: { tipoRelacion: string; uuids: string[] }[];
}
