import { createSandboxPac } from '../src/pac/sandbox.ts';
import type { CancelRequest, CancelResult, Pac, RetencionCancelRequest, StampResult } from '../src/pac/types.ts';
import { testSandboxSat } from './helpers.ts';

/**
 * `stamped_silently`: stamps, then answers as a timeout would (ambiguous); `recover` finds that stamp. `held`: stamps
 * when the test calls `release()`, an answer in flight until then.
 */
type Step = 'ok' | 'provider' | 'ambiguous' | 'definitive' | 'stamped_silently' | 'held';

/** A live PAC named `name` answering from its script (then stamping like the sandbox), counting its calls. */
export function scriptedPac(name: string, script: Step[] = []) {
  const sandbox = createSandboxPac(testSandboxSat());
  const kept = new Map<string, StampResult>();
  const pac = {
    ...sandbox,
    name,
    inProcess: false,
    calls: 0,
    script,
    cancelled: [] as CancelRequest[],
    release: () => {},
    /** `recover` cannot reach the PAC (an outage of its query service). */
    recoverDown: false,
    async recover(xml: string): Promise<StampResult | undefined> {
      if (pac.recoverDown) return { ok: false, class: 'provider', message: `${name}: ECONNREFUSED` };
      return kept.get(xml);
    },
    async cancel(request: CancelRequest): Promise<CancelResult> {
      pac.cancelled.push(request);
      return { ok: true, acuseXml: '<Acuse/>', estatusUuid: '201' };
    },
    cancelledRetenciones: [] as RetencionCancelRequest[],
    /** Cancels a retención as a PAC that speaks cancelacionretencion would; a test unsets it for one that does not. */
    cancelRetencion: (async (request: RetencionCancelRequest): Promise<CancelResult> => {
      pac.cancelledRetenciones.push(request);
      return { ok: true, acuseXml: '<Acuse/>', estatusUuid: '201' };
    }) as Pac['cancelRetencion'],
    /** As SW's and Finkok's adapters: SAT has no status service for Retenciones. */
    retencionStatus: undefined,
    async stamp(xml: string): Promise<StampResult> {
      pac.calls++;
      const step = pac.script.shift() ?? 'ok';
      if (step === 'held') {
        await new Promise<void>((resolve) => (pac.release = resolve));
        return sandbox.stamp(xml, { tenantId: name });
      }
      if (step === 'stamped_silently') {
        kept.set(xml, await sandbox.stamp(xml, { tenantId: name }));
        return { ok: false, class: 'ambiguous', message: `${name}: timed out after the body was sent` };
      }
      if (step === 'provider') return { ok: false, class: 'provider', message: `${name}: ECONNREFUSED` };
      if (step === 'ambiguous') return { ok: false, class: 'ambiguous', message: `${name}: HTTP 502` };
      if (step === 'definitive') return { ok: false, class: 'definitive', code: '302', message: 'Sello mal formado o inválido' };
      // One account per PAC: the UUID depends on the PAC, so two PACs stamping one document give two UUIDs.
      return sandbox.stamp(xml, { tenantId: name });
    },
  };
  return pac;
}
