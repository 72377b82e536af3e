import type { Step } from '../cadena-steps.ts';
import type { Fail, TipoDeComprobante } from '../input.ts';
import type { ComprobanteModel, ConceptoModel, ReceptorModel } from '../model.ts';
import type { PdfLayout, TotalRow } from '../pdf/layout.ts';
import type { XmlNode } from '../xml.ts';

/**
 * A SAT complement, whole: where its node goes and under which namespace, how its request member becomes its model
 * (with its SAT rule codes), its XML node, its cadena steps (after SAT's XSLT), its PDF section and what GET shows
 * of it. Its node goes in cfdi:Complemento, or in cfdi:Concepto/cfdi:ComplementoConcepto for a concepto complement
 * (the registry's second list). `build`, `cadena`, `prepare`, the PDF and the stored summary iterate the registry
 * (./index.ts); a new complement is a folder here and one entry there (docs/decisions.md, "A complement is one module").
 */
export interface Complement<
  Key extends string = string,
  ModelKey extends string = string,
  Input = unknown,
  Model = unknown,
  Context = unknown,
  Summary = unknown,
> {
  /** The request member that carries it: on the Comprobante (`carta_porte`), or on each concepto for a concepto complement. */
  input: Key;
  /** The model member (ComprobanteModel, or ConceptoModel for a concepto complement) that carries it prepared. */
  model: ModelKey;
  /** Its element, prefixed: the XML node's name and the cadena template's match. */
  element: string;
  prefix: string;
  namespace: string;
  /** The XSD's URL, paired with the namespace in xsi:schemaLocation. */
  schemaLocation: string;
  /**
   * A kind complement documents a whole TipoDeComprobante (Pagos: P, Nómina: N): its input is required there, it sets
   * the conceptos and amounts, and the Comprobante has no conceptos of its own. Without it, the complement rides on
   * the conceptos of an I, E or T, prepared after them.
   */
  kind?: { tipo: TipoDeComprobante; amounts(model: Model): KindAmounts };
  /**
   * Its request member as its model, every problem reported through `fail` (undefined: not preparable). `context` is
   * what the caller supplies for it (PrepareContext is the intersection of every complement's Context).
   */
  prepare(input: Input, facts: ComprobanteFacts, context: Context, fail: Fail): Model | undefined;
  /**
   * When its member is not sent (on an I, E or T; on each concepto for a concepto complement): a complement that is
   * required in some cases reports it here (Hidrocarburos y Petrolíferos on the fuel keys).
   */
  absent?(facts: ComprobanteFacts, fail: Fail): void;
  /** After the Comprobante's totals (I, E): the totals it changes (Impuestos Locales adds its taxes to Total). */
  adjustTotals?(model: Model, totals: ComprobanteTotals, fail: Fail): ComprobanteTotals | undefined;
  node(model: Model): XmlNode;
  cadena: Step[];
  pdf?: PdfSection;
  /** A concepto complement's lines in the PDF, under its concepto's description (its node, from cfdi:ComplementoConcepto). */
  conceptoNotes?(node: XmlNode): string[];
  /** What GET /cfdis/{id} shows of it, stored with the CFDI's summary under `input` (amounts as exact decimal text). */
  summary?(model: Model): Summary;
}

/** What the Comprobante's own preparation settled, lent to each complement's prepare. */
export interface ComprobanteFacts {
  tipo: TipoDeComprobante;
  /** Fecha as written (YYYY-MM-DDThh:mm:ss); `day` its date, on which catalog keys must be in force. */
  fecha: string;
  day: string;
  moneda: string;
  tipoCambio?: string;
  /** The currency's decimals. */
  decimals: number;
  exportacion: string;
  emisor: { rfc: string; nombre: string; regimenFiscal: string; codigoPostal: string };
  receptor: ReceptorModel;
  /** The CfdiRelacionados (Comercio Exterior's MotivoTraslado 01 needs a TipoRelacion 05). */
  relacionados: ComprobanteModel['relacionados'];
  /** Where a receptor problem is reported: `receptor` or `receptor_id`. */
  receptorField: string;
  /** The prepared conceptos (I, E, T; none for a kind complement); for a concepto complement, only the one it is on. */
  conceptos: ConceptoModel[];
  /** The input's field path: `carta_porte`, `conceptos[2].hidrocarburos_petroliferos`. */
  field: string;
}

/** The Comprobante's amounts a kind complement sets. */
type KindAmounts = Pick<ComprobanteModel, 'subTotal' | 'descuento' | 'total' | 'conceptos'>;
export type ComprobanteTotals = Pick<ComprobanteModel, 'subTotal' | 'descuento' | 'total' | 'impuestos'>;

/** Its PDF section: it decides its content only and draws through the layout it is lent. */
export interface PdfSection {
  render(layout: PdfLayout, node: XmlNode): void;
  /** The totals block in place of the CFDI's, for the TipoDeComprobante it documents, when the CFDI carries exactly one. */
  totals?: { tipoDeComprobante: string; rows(node: XmlNode, total: string | undefined, moneda: string): TotalRow[] };
  /**
   * Its lines of the CFDI's totals block, after the federal taxes and before Total, for a complement whose amounts are
   * part of Total (adjustTotals): label and signed amount as decimal text (`-200.00` for a withholding).
   */
  totalLines?(node: XmlNode): [string, string][];
  /** Printed after the comprobante's totals rather than before them: a complement that does not document its amounts. */
  afterTotals?: boolean;
  /** A QR code of the complement's own, printed under the CFDI's with its title and what it encodes. */
  qr?(node: XmlNode, fechaTimbrado: string): { title: string; url: string; rows: [string, string][] };
}
