import { withTransaction } from '../../db/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { closeQueuedJobs, isJobRunning } from '../../jobs/queue.ts';
import { conflict } from '../../lib/service-error.ts';
import { transition } from './lifecycle.ts';
import type { CfdiDeps } from './issue.ts';
import { findCfdi } from './reads.ts';

/**
 * POST /cfdis/:id/withdraw: a queued CFDI is not stamped any more (fallido, reason "withdrawn"). Only while no
 * stamping attempt is running; one already in flight that still stamps it is recorded anyway (SAT has it then), so
 * the receipts it took are held until such an attempt has settled (the lifecycle's reactions; docs/decisions.md).
 */
export async function withdrawCfdi(deps: Pick<CfdiDeps, 'db' | 'now'>, actor: Actor, ref: string) {
  const cfdi = await findCfdi(deps.db, actor, ref);
  if (cfdi.status !== 'en_cola') {
    const hint = cfdi.status === 'vigente' ? ': it is stamped, so cancel it instead (POST /cfdis/{id}/cancel)' : '';
    throw conflict(`CFDI ${cfdi.id} is ${cfdi.status}; only a queued CFDI can be withdrawn${hint}`, [{ field: 'status', issue: `is ${cfdi.status}` }]);
  }
  const now = deps.now();
  // serializable: a running stamp job, read, decides the move
  await withTransaction(deps.db, { isolation: 'serializable', name: 'cfdis.withdraw' }, async (tx) => {
    const running = await isJobRunning(tx, 'cfdi.stamp', 'cfdi_id', cfdi.id);
    if (running)
      throw conflict(`A stamping attempt for ${cfdi.id} is in flight; try again in a few seconds`, [{ field: 'status', issue: 'stamping attempt running' }]);
    const moved = await transition(tx, cfdi, 'en_cola', 'fallido', { reason: 'withdrawn before stamping', at: now, withdrawn: true });
    if (moved === undefined) throw conflict(`CFDI ${cfdi.id} changed meanwhile`, [{ field: 'status', issue: 'is no longer en_cola' }]);
    await closeQueuedJobs(tx, 'cfdi.stamp', 'cfdi_id', cfdi.id, now);
  });
  return { id: cfdi.id, status: 'fallido' as const, withdrawn_at: now.toISOString() };
}
