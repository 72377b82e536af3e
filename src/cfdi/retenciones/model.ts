import type { Dec } from '../decimal.ts';
import type { XmlNode } from '../xml.ts';
import type { ComplementModels } from './complements/index.ts';

/** The document as it will be written: every amount final and exact. */

export interface ImpRetenidoModel {
  baseRet?: Dec;
  impuestoRet?: string;
  montoRet: Dec;
  tipoPagoRet: string;
}

export type ReceptorRetencionModel =
  | { nacionalidad: 'Nacional'; rfc: string; nombre: string; curp?: string; domicilioFiscal: string }
  | { nacionalidad: 'Extranjero'; nombre: string; numRegIdTrib?: string };

export interface TotalesModel {
  montoTotOperacion: Dec;
  montoTotGrav: Dec;
  montoTotExent: Dec;
  montoTotRet: Dec;
  utilidadBimestral?: Dec;
  isrCorrespondiente?: Dec;
  impRetenidos: ImpRetenidoModel[];
}

export interface PeriodoModel {
  mesIni: string;
  mesFin: string;
  ejercicio: string;
}

export type RetencionModel = {
  folioInt?: string;
  fechaExp: string;
  lugarExpRetenc: string;
  cveRetenc: string;
  descRetenc?: string;
  relacionado?: { tipoRelacion: string; uuid: string };
  emisor: { rfc: string; nombre: string; regimenFiscal: string };
  receptor: ReceptorRetencionModel;
  periodo: PeriodoModel;
  totales: TotalesModel;
  /** SAT's other complements as sent (their schema checked), in the order sent, after the structured ones. */
  rawComplements: XmlNode[];
} & ComplementModels;

/** What the document's own preparation settled, lent to each complement's prepare. */
export interface RetencionFacts {
  cveRetenc: string;
  fechaExp: string;
  periodo: PeriodoModel;
  receptor: ReceptorRetencionModel;
  totales: TotalesModel;
  /** The request member that carries the complement: `plataformas_tecnologicas`. */
  field: string;
}
