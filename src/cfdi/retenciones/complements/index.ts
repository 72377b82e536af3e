import type { Step } from '../../cadena-steps.ts';
import type { ComplementSchema, RetencionComplement } from './complement.ts';
import { dividendos10 } from './dividendos10/index.ts';
import { pagosaextranjeros10 } from './pagosaextranjeros10/index.ts';
import { plataformastecnologicas10 } from './plataformastecnologicas10/index.ts';
import { RAW_COMPLEMENTS } from './raw.ts';

/**
 * The registry of Retenciones 2.0 complements: the structured ones, in the order their nodes are written in
 * retenciones:Complemento, then SAT's others taken as XML (./raw.ts). Input and model types derive from the list, as
 * for the CFDI's (src/cfdi/complements/index.ts): a new structured complement is its folder and its entry here.
 */
const STRUCTURED = [plataformastecnologicas10, dividendos10, pagosaextranjeros10] as const;

type Entry = RetencionComplement;
type InputOf<C extends Entry> = Parameters<C['prepare']>[0];
type ModelOf<C extends Entry> = NonNullable<ReturnType<C['prepare']>>;

/** RetencionInput's complement members: `plataformas_tecnologicas`, `dividendos`, `pagos_a_extranjeros`. */
export type ComplementInputs = { [C in (typeof STRUCTURED)[number] as C['input']]?: InputOf<C> };
/** RetencionModel's: `plataformasTecnologicas`, `dividendos`, `pagosAExtranjeros`. */
export type ComplementModels = { [C in (typeof STRUCTURED)[number] as C['model']]?: ModelOf<C> };

export const COMPLEMENTS: readonly Entry[] = STRUCTURED;

/** Every complement SAT's retenciones.xslt includes, by its namespace. */
export const BY_NAMESPACE: ReadonlyMap<string, ComplementSchema> = new Map([...STRUCTURED, ...RAW_COMPLEMENTS].map((c) => [c.namespace, c]));

/** Cadena steps by element, as retenciones.xslt includes the complements' templates. */
export const COMPLEMENT_STEPS: Record<string, Step[]> = Object.fromEntries([...STRUCTURED, ...RAW_COMPLEMENTS].map((c) => [c.element, c.cadena]));

/** A complement's member of a request or a model, by the name its registry entry gives it. */
export const memberOf = (o: object, key: string): unknown => (o as Record<string, unknown>)[key];
