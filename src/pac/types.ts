import type { Tfd } from '../cfdi/tfd.ts';

/** A stamping provider. The sandbox simulator and the live HTTP adapters implement it. */
export type StampResult =
  | { ok: true; xml: string; tfd: Tfd }
  | { ok: false; retryable: true; message: string }
  | { ok: false; retryable: false; code: string; message: string };

export const SANDBOX_SCENARIOS = ['pac_unavailable', 'pac_slow', 'pac_rejected'] as const;
export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number];

export interface StampOptions {
  /** Test mode only: force an outcome of this attempt (X-Sandbox-Scenario). */
  scenario?: SandboxScenario;
}

/**
 * Stamping the same sealed document again must return the same stamp (PACs answer a duplicate with the earlier
 * TFD): that is what makes a retry after a lost response safe.
 */
export interface Pac {
  stamp(sealedXml: string, options?: StampOptions): Promise<StampResult>;
}
