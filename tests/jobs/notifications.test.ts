import { afterAll, describe, expect, test } from 'bun:test';
import type { Db } from '../../src/db/client.ts';
import { closeDatabase, withTransaction } from '../../src/db/index.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { listenForEnqueues } from '../../src/topology/postgres.ts';
import { enqueue } from '../../src/jobs/queue.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { until } from '../helpers.ts';
import { POSTGRES, scratchDatabase } from '../postgres.ts';

describe.skipIf(!POSTGRES)('enqueue notifications (PostgreSQL)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('an enqueue through one instance wakes the worker of another, with no poll at all, once the transaction commits', async () => {
    const scratch = await scratchDatabase();
    cleanup.push(scratch.drop);
    const enqueuer: Db = await openPostgres(scratch.url, { max: 2 });
    const other: Db = await openPostgres(scratch.url, { max: 2 });
    cleanup.push(
      () => closeDatabase(enqueuer),
      () => closeDatabase(other),
    );
    const ran: string[] = [];
    const woken: (string | undefined)[] = [];
    const worker = createWorker({
      db: other,
      now: () => new Date(),
      workerId: 'other-instance',
      logger: createLogger('silent'),
      handlers: { 'test.notified': { run: async (job) => void ran.push(job.payload.n as string) } },
    });
    const stopListening = await listenForEnqueues(
      other,
      (type) => {
        woken.push(type);
        worker.wake(type);
      },
      createLogger('silent'),
    );
    cleanup.push(stopListening, () => worker.stop());
    woken.length = 0; // the (re)connect wake-up, sent when listening starts
    // Nothing ever calls drain(): only the notice can start the worker. A rolled-back enqueue sends none.
    await withTransaction(enqueuer, { isolation: 'serializable' }, async (tx) => {
      await enqueue(tx, new Date(), { type: 'test.notified', payload: { n: 'rolled back' } });
      throw new Error('rollback');
    }).catch(() => {});
    await withTransaction(enqueuer, { isolation: 'serializable' }, async (tx) => {
      await enqueue(tx, new Date(), { type: 'test.notified', payload: { n: 'committed' } });
    });
    await until(() => ran.length === 1, 'the other instance runs the job');
    expect(ran).toEqual(['committed']);
    expect(woken).toEqual(['test.notified']);
  });
});
