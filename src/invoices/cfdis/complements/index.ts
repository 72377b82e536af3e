import type { z } from '@hono/zod-openapi';
import type { ComplementInputs, ComplementSummaries, ConceptoComplementInputs, ConceptoComplementSummaries } from '../../../cfdi/complements/index.ts';
import type { CfdiSummary } from '../../../db/schema/index.ts';
import { cartaporte31 } from './cartaporte31.ts';
import { comercioexterior20 } from './comercioexterior20.ts';
import { hidrocarburospetroliferos10 } from './hidrocarburospetroliferos10.ts';
import { implocal10 } from './implocal10.ts';
import { nomina12 } from './nomina12.ts';
import { pagos20 } from './pagos20.ts';

/**
 * A complement on the wire: its member of POST /cfdis (the zod schema, checked by `Fits<>` against the engine's
 * input type), which requests may carry it, and its member of the Cfdi response with the stored summary's mapping
 * to it. The engine's side is src/cfdi/complements/; a new complement is its file here and its line below.
 */
export interface WireComplement<Key extends keyof ComplementInputs & keyof ComplementSummaries, Response extends z.ZodType> {
  request: z.ZodType<ComplementInputs[Key]>;
  /**
   * A 400 on the member when the request may not carry it (or needs it and it is missing): by its tipo, and its
   * exportacion for Comercio Exterior; `rule`: SAT's code.
   */
  carriedBy(request: { tipo: string; exportacion?: string }, sent: boolean): { message: string; rule?: string } | undefined;
  response: Response;
  toWire(stored: NonNullable<ComplementSummaries[Key]>): NonNullable<z.output<Response>>;
}

/** The registry, by request member, in the order the members appear in the request and the response. */
const WIRE_COMPLEMENTS = {
  pagos: pagos20,
  nomina: nomina12,
  carta_porte: cartaporte31,
  comercio_exterior: comercioexterior20,
  impuestos_locales: implocal10,
};
type Wire = typeof WIRE_COMPLEMENTS;
const ENTRIES = Object.entries(WIRE_COMPLEMENTS) as [keyof Wire, Wire[keyof Wire]][];

/** The complements' members of the request schema (CfdiRequest). */
export const COMPLEMENT_REQUESTS = Object.fromEntries(ENTRIES.map(([key, c]) => [key, c.request])) as { [K in keyof Wire]: Wire[K]['request'] };
/** The complements' members of the response schema (Cfdi). */
export const COMPLEMENT_RESPONSES = Object.fromEntries(ENTRIES.map(([key, c]) => [key, c.response])) as { [K in keyof Wire]: Wire[K]['response'] };

/** Each complement member the request may not carry (or must): the request schema's superRefine reports it. */
export function checkComplementTipos(r: { tipo: string; exportacion?: string } & { [K in keyof Wire]?: unknown }, ctx: z.RefinementCtx): void {
  for (const [key, c] of ENTRIES) {
    const issue: { message: string; rule?: string } | undefined = c.carriedBy(r, !!r[key]);
    if (issue) ctx.addIssue({ code: 'custom', path: [key], message: issue.message, ...(issue.rule ? { params: { rule: issue.rule } } : {}) });
  }
}

/** The stored summary's complements as the response shows them. */
export function complementsToWire(s: CfdiSummary): { [K in keyof Wire]?: z.output<Wire[K]['response']> } {
  const out: Record<string, unknown> = {};
  for (const [key, c] of ENTRIES) {
    const stored = s[key];
    // Each entry's toWire takes its own member of the summary (satisfies WireComplement<key> checks the pairing).
    if (stored !== undefined) out[key] = (c.toWire as (v: typeof stored) => unknown)(stored);
  }
  return out;
}

/**
 * A concepto complement on the wire: its member of each concepto of POST /cfdis (conceptos[i].<member>), checked by
 * `Fits<>` with the concepto. Every concepto complement of the engine's registry needs its entry (the type says so).
 */
type WireConceptoComplement = {
  [K in keyof ConceptoComplementInputs]-?: {
    request: z.ZodType<ConceptoComplementInputs[K]>;
    /** Its member of each concepto of the Cfdi response, from the concepto's stored summary (when it has one). */
    response?: z.ZodType;
    toWire?(stored: NonNullable<ConceptoComplementSummaries[K]>): unknown;
  };
};
const WIRE_CONCEPTO_COMPLEMENTS = { hidrocarburos_petroliferos: hidrocarburospetroliferos10 } satisfies WireConceptoComplement;
type WireConceptoComplements = typeof WIRE_CONCEPTO_COMPLEMENTS;

/** The concepto complements' members of the concepto schema (ConceptoSchema). */
export const CONCEPTO_COMPLEMENT_REQUESTS = Object.fromEntries(
  Object.entries(WIRE_CONCEPTO_COMPLEMENTS).map(([key, c]) => [key, (c as { request: z.ZodType }).request]),
) as { [K in keyof WireConceptoComplements]: WireConceptoComplements[K]['request'] };

type WithResponse = {
  [K in keyof WireConceptoComplements as WireConceptoComplements[K] extends { response: z.ZodType } ? K : never]: WireConceptoComplements[K];
};
/** The concepto complements' members of the response's conceptos (Cfdi.conceptos[]). */
export const CONCEPTO_COMPLEMENT_RESPONSES = Object.fromEntries(
  Object.entries(WIRE_CONCEPTO_COMPLEMENTS).flatMap(([key, c]) => {
    const response = (c as { response?: z.ZodType }).response;
    return response ? [[key, response]] : [];
  }),
) as { [K in keyof WithResponse]: WithResponse[K] extends { response: infer R } ? R : never };

/** A stored concepto's complements as the response shows them. */
export function conceptoComplementsToWire(stored: ConceptoComplementSummaries): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, c] of Object.entries(WIRE_CONCEPTO_COMPLEMENTS) as [keyof ConceptoComplementSummaries, { toWire?(s: unknown): unknown }][]) {
    const value = stored[key];
    if (value !== undefined && c.toWire) out[key] = c.toWire(value);
  }
  return out;
}
