import { cancellationFactsOf, type CancellationFacts } from '../../cfdi/cancellation.ts';
import type { Actor } from '../../lib/backend.ts';
import { ServiceError } from '../../lib/service-error.ts';
import type { CfdiQuery } from '../../pac/types.ts';
import { findCfdi } from '../cfdis/reads.ts';
import type { CancellationDeps } from './service.ts';

/** What SAT's consultation service is asked about a CFDI: its UUID, both RFCs, the total and the seal's end. */
export const queryOf = (f: CancellationFacts): CfdiQuery => ({
  uuid: f.uuid,
  rfcEmisor: f.rfcEmisor,
  rfcReceptor: f.rfcReceptor,
  total: f.total,
  sello: f.sello,
});

/** GET /cfdis/:id/sat-status: SAT's consultation for a stamped CFDI (simulated in the sandbox). */
export async function getSatStatus(deps: Pick<CancellationDeps, 'db' | 'now' | 'pacFor'>, actor: Actor, ref: string) {
  const cfdi = await findCfdi(deps.db, actor, ref);
  if (!cfdi.uuid) {
    throw new ServiceError(
      'not_found',
      `CFDI ${cfdi.id} is ${cfdi.status === 'en_cola' ? 'queued for stamping' : cfdi.status}: it has no UUID, so SAT does not know it`,
      [{ field: 'id', issue: `${cfdi.id} is not stamped` }],
    );
  }
  const pac = deps.pacFor(actor.environment, cfdi.pac);
  if (!pac)
    throw new ServiceError('unavailable', 'No PAC is configured for the live environment', [
      { field: 'environment', issue: 'live consultation needs a PAC configuration' },
    ]);
  const result = await pac.status(queryOf(cancellationFactsOf(cfdi.xml.toString('utf8'))));
  if (!result.ok)
    throw new ServiceError('unavailable', "SAT's consultation service did not answer; try again later", [{ field: 'sat', issue: result.message }], 30);
  return { uuid: cfdi.uuid, consulted_at: deps.now().toISOString(), ...result.status };
}
