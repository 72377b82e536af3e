import { finkokEntry } from './finkok.ts';
import { swEntry } from './sw.ts';
import type { Pac, PacEntry } from './types.ts';

/**
 * Every live PAC this server can speak to. Adding one is its adapter file (exporting its entry), a line here, and its
 * mock in tests/pac; PACS, the settings' checks (src/env.ts) and the start-up build follow from this list (the 503 text
 * of live issuing without a PAC, src/invoices/cfdis, names them by hand).
 */
export const PAC_REGISTRY: readonly PacEntry[] = [swEntry, finkokEntry];

/** A PAC the configuration lists: its registry name and its settings' values, by variable name. */
export interface ConfiguredPac {
  name: string;
  settings: Readonly<Record<string, string>>;
}

/** The live adapters, in the configured order (the first is tried first). */
export function buildPacs(configured: readonly ConfiguredPac[], shared: { satConsultaUrl?: string }): Pac[] {
  return configured.map((c) => {
    const entry = PAC_REGISTRY.find((e) => e.name === c.name);
    if (!entry) throw new Error(`unknown PAC ${c.name}`); // loadConfig refuses it first
    return entry.build(c.settings, shared);
  });
}
