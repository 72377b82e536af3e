import type { Step } from '../../cadena-steps.ts';
import type { PdfLayout } from '../../pdf/layout.ts';
import type { Fail } from '../../input.ts';
import type { XmlNode } from '../../xml.ts';
import type { RetencionFacts } from '../model.ts';

/**
 * What SAT publishes of a Retenciones 2.0 complement: its element (prefixed, as the document writes it and the cadena
 * matches it), namespace, schema (the file in ../xsd and its URL for xsi:schemaLocation) and cadena steps (after its
 * stylesheet, which SAT's retenciones.xslt includes). The ten complements taken as XML are only this (./raw.ts).
 */
export interface ComplementSchema {
  /** Its name as SAT gives it, printed in the PDF (a complement taken as XML prints only this). */
  title: string;
  element: string;
  prefix: string;
  namespace: string;
  schemaLocation: string;
  /** Its schema in ../xsd. */
  xsd: string;
  cadena: Step[];
}

/**
 * A structured Retenciones complement, the same shape as a CFDI complement (src/cfdi/complements/complement.ts): the
 * request member that carries it, the model member, how the member becomes its model with every problem reported
 * through `fail` (with SAT's rule code where SAT gives one), its node, its PDF section and what GET shows of it. The registry
 * (./index.ts) lists them; build, cadena and prepare iterate it.
 */
export interface RetencionComplement<Key extends string = string, ModelKey extends string = string, Input = unknown, Model = unknown, Summary = unknown>
  extends ComplementSchema {
  input: Key;
  model: ModelKey;
  prepare(input: Input, facts: RetencionFacts, fail: Fail): Model | undefined;
  node(model: Model): XmlNode;
  /** Its section of the printed representation, read from its node in the stamped XML. */
  pdf?(layout: PdfLayout, node: XmlNode): void;
  summary?(model: Model): Summary;
}
