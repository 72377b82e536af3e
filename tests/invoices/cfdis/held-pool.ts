import { PdfPool } from '../../../src/invoices/cfdis/pdf-pool.ts';

/**
 * A PDF pool whose renders can be held: while held, a render takes its thread (counted in `running`) but starts
 * only at release(), so a test fills the pool and sees who is refused without racing the renders.
 */
export function heldPool(size: number, waiting: number) {
  const pool = new PdfPool(size, waiting);
  const held: (() => void)[] = [];
  let holding = false;
  const run = (pool as any).run.bind(pool);
  (pool as any).run = (job: unknown) => (holding ? held.push(() => run(job)) : run(job));
  return {
    pool,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const start of held.splice(0)) start();
    },
  };
}
