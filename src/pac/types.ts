import type { Tfd } from '../cfdi/tfd.ts';

/** A stamping provider. The sandbox simulator and the live HTTP adapters implement it. */
export type StampResult =
  | { ok: true; xml: string; tfd: Tfd }
  | { ok: false; retryable: true; message: string }
  | { ok: false; retryable: false; code: string; message: string };

export interface Pac {
  stamp(sealedXml: string): Promise<StampResult>;
}
