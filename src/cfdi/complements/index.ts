import type { Step } from '../cadena-steps.ts';
import type { TipoDeComprobante } from '../input.ts';
import type { ComprobanteModel, ConceptoModel } from '../model.ts';
import type { XmlNode } from '../xml.ts';
import { cartaporte31 } from './cartaporte31/index.ts';
import { comercioexterior20 } from './comercioexterior20/index.ts';
import type { Complement, PdfSection } from './complement.ts';
import { hidrocarburospetroliferos10 } from './hidrocarburospetroliferos10/index.ts';
import { implocal10 } from './implocal10/index.ts';
import { nomina12 } from './nomina12/index.ts';
import { pagos20 } from './pagos20/index.ts';

/**
 * The registry: every complement this service issues, one entry each, in the order their nodes follow each other
 * in cfdi:Complemento (and their sections in the PDF). The engine's input, model and context types derive from
 * these lists, so a new complement is its folder, its import and its entry here (docs/decisions.md, "A complement is
 * one module").
 */
const ON_COMPROBANTE = [pagos20, nomina12, cartaporte31, comercioexterior20, implocal10] as const;
/** Complements of a concepto (cfdi:Concepto/cfdi:ComplementoConcepto), sent under each concepto. */
const ON_CONCEPTO = [hidrocarburospetroliferos10] as const;

type Entry = Complement;
type Registry = readonly Entry[];
type InputOf<C extends Entry> = Parameters<C['prepare']>[0];
type ModelOf<C extends Entry> = NonNullable<ReturnType<C['prepare']>>;
type ContextOf<C extends Entry> = Parameters<C['prepare']>[2];
type SummaryOf<C extends Entry> = ReturnType<NonNullable<C['summary']>>;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

type Inputs<L extends Registry> = { [C in L[number] as C['input']]?: InputOf<C> };
type Models<L extends Registry> = { [C in L[number] as C['model']]?: ModelOf<C> };

/** ComprobanteInput's and ConceptoInput's complement members: `pagos`, `nomina`, `carta_porte`, … */
export type ComplementInputs = Inputs<typeof ON_COMPROBANTE>;
export type ConceptoComplementInputs = Inputs<typeof ON_CONCEPTO>;
/** ComprobanteModel's and ConceptoModel's: `pagos`, `nomina`, `cartaPorte`, … */
export type ComplementModels = Models<typeof ON_COMPROBANTE>;
export type ConceptoComplementModels = Models<typeof ON_CONCEPTO>;
/** What the caller supplies for the complements (part of PrepareContext). */
export type ComplementContexts = Intersection<ContextOf<(typeof ON_COMPROBANTE)[number] | (typeof ON_CONCEPTO)[number]>>;
/** What GET shows of each complement of the Comprobante, stored with the CFDI's summary under its request member. */
export type ComplementSummaries = { [C in (typeof ON_COMPROBANTE)[number] as C['input']]?: SummaryOf<C> };

/** What GET shows of each concepto complement of a concepto, stored with the concepto's summary under its request member. */
export type ConceptoComplementSummaries = { [C in (typeof ON_CONCEPTO)[number] as C['input']]?: SummaryOf<C> };

/** A complement's member of a request, a model or a concepto, by the name its registry entry gives it. */
export const memberOf = (o: object, key: string): unknown => (o as Record<string, unknown>)[key];

export const COMPLEMENTS: readonly Complement[] = ON_COMPROBANTE;
export const CONCEPTO_COMPLEMENTS: readonly Complement[] = ON_CONCEPTO;

/** Kind complements by the TipoDeComprobante they document (P: Pagos, N: Nómina). */
export const KIND_OF: Partial<Record<TipoDeComprobante, Complement>> = Object.fromEntries(COMPLEMENTS.filter((c) => c.kind).map((c) => [c.kind!.tipo, c]));

/** Cadena steps by element, as cadenaoriginal_4_0.xslt includes the complements' templates. */
export const COMPLEMENT_STEPS: Record<string, Step[]> = Object.fromEntries([...COMPLEMENTS, ...CONCEPTO_COMPLEMENTS].map((c) => [c.element, c.cadena]));

/** The PDF sections of the complements with something to print, in registry order. */
export const PDF_SECTIONS: (PdfSection & { element: string })[] = COMPLEMENTS.flatMap((c) => (c.pdf ? [{ element: c.element, ...c.pdf }] : []));

/** The concepto complements with lines to print under their concepto, by element. */
export const CONCEPTO_NOTES: { element: string; notes(node: XmlNode): string[] }[] = CONCEPTO_COMPLEMENTS.flatMap((c) =>
  c.conceptoNotes ? [{ element: c.element, notes: c.conceptoNotes }] : [],
);

/** What GET shows of the complements a model carries, each under its request member (the stored CFDI summary). */
export function complementSummaries(m: ComprobanteModel): ComplementSummaries {
  const out: Record<string, unknown> = {};
  for (const c of COMPLEMENTS) {
    const model = memberOf(m, c.model);
    if (model !== undefined && c.summary) out[c.input] = c.summary(model);
  }
  return out as ComplementSummaries;
}

/** What GET shows of the concepto complements a concepto carries, each under its request member. */
export function conceptoComplementSummaries(c: ConceptoModel): ConceptoComplementSummaries {
  const out: Record<string, unknown> = {};
  for (const complement of CONCEPTO_COMPLEMENTS) {
    const model = memberOf(c, complement.model);
    if (model !== undefined && complement.summary) out[complement.input] = complement.summary(model);
  }
  return out as ConceptoComplementSummaries;
}
