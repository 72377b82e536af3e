import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import type { PdfOptions } from '../../cfdi/pdf.ts';
import { ServiceError } from '../../lib/service-error.ts';

/**
 * PDF renders run on worker threads, so a 2,000-concepto invoice (seconds of CPU) never stalls the event loop that
 * answers every other request. At most `size` render at once, which also bounds their memory (each holds one
 * document); up to `waiting` more wait their turn, and beyond that the request is answered 503 with Retry-After.
 * Every render has an owner (a tenant, or the portal): one owner renders on at most `share.running` threads (one
 * fewer than the pool, so a thread is left to the others) with at most `share.waiting` more queued, beyond which
 * it alone is answered 429; queued renders start owner by owner in turn (docs/decisions.md, "One PDF pool for all").
 */
// availableParallelism() reads navigator.hardwareConcurrency, which a library may shadow (pdf.js in the tests does).
// A worker process of several gets its share of them from the supervisor (src/topology/cluster.ts).
const PDF_WORKERS = Number(process.env.CFDI_PDF_WORKERS) || Math.min(2, availableParallelism() || cpus().length || 1);
const PDF_WAITING = 32;
const OWNER_WAITING = 4;
/** A render taking longer is stopped (its thread replaced): the largest invoice the schema allows renders in seconds. */
const PDF_RENDER_TIMEOUT_MS = 60_000;
const RETRY_AFTER_SECONDS = 2;

/**
 * The worker's entry: a sibling file from source; inside the executable, an entry point of its own (src/compile.ts)
 * kept at its path under src/, beside the bundle (whose import.meta is the executable's root).
 */
const WORKER_ENTRY = Bun.isStandaloneExecutable
  ? join(import.meta.dir, 'invoices', 'cfdis', 'pdf-worker.js')
  : new URL('./pdf-worker.ts', import.meta.url).href;

interface Job {
  owner: string;
  xml: string;
  options: PdfOptions;
  resolve(pdf: Uint8Array): void;
  reject(err: Error): void;
}

/** What one owner may hold of the pool: renders at once, and renders waiting. */
interface Share {
  running: number;
  waiting: number;
}

export class PdfPool {
  private readonly idle: Worker[] = [];
  /** Queued renders by owner; an owner is moved to the end when one of its renders starts (round robin). */
  private readonly queues = new Map<string, Job[]>();
  private readonly runningBy = new Map<string, number>();
  /** Renders in progress now, waiting now, and the most that ever ran at once (tests check it never exceeds `size`). */
  running = 0;
  queued = 0;
  peak = 0;
  /** Renders started since the pool was made (tests count them to see the PDF cache at work). */
  started = 0;
  readonly share: Share;

  constructor(
    readonly size = PDF_WORKERS,
    readonly waiting = PDF_WAITING,
    public timeoutMs = PDF_RENDER_TIMEOUT_MS,
    share: Partial<Share> = {},
  ) {
    this.share = { running: share.running ?? Math.max(1, size - 1), waiting: share.waiting ?? Math.min(OWNER_WAITING, waiting) };
  }

  /** `owner`: whose share the render counts against (a tenant id, or `portal`). */
  render(xml: string, options: PdfOptions, owner: string): Promise<Uint8Array> {
    // An owner has renders waiting only while it is at its running share or the pool is full.
    if ((this.queues.get(owner)?.length ?? 0) >= this.share.waiting) {
      return Promise.reject(
        new ServiceError(
          'too_many',
          'Too many of your PDFs are being rendered',
          [
            {
              field: 'pdf',
              issue: `${this.share.waiting} of your PDFs are waiting for the pool already (at most ${this.share.running} render at once); retry in ${RETRY_AFTER_SECONDS} seconds`,
            },
          ],
          RETRY_AFTER_SECONDS,
        ),
      );
    }
    if (this.running >= this.size && this.queued >= this.waiting) {
      return Promise.reject(
        new ServiceError(
          'unavailable',
          'Too many PDFs are being rendered',
          [{ field: 'pdf', issue: `${this.size} PDFs are rendering and ${this.waiting} are waiting; retry in ${RETRY_AFTER_SECONDS} seconds` }],
          RETRY_AFTER_SECONDS,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(owner);
      if (queue) queue.push({ owner, xml, options, resolve, reject });
      else this.queues.set(owner, [{ owner, xml, options, resolve, reject }]);
      this.queued++;
      this.next();
    });
  }

  /** Stops the idle workers (a busy one is stopped when its render ends). */
  close(): void {
    for (const worker of this.idle.splice(0)) worker.terminate();
  }

  private next(): void {
    while (this.running < this.size) {
      const job = this.take();
      if (!job) return;
      this.running++;
      this.started++;
      this.runningBy.set(job.owner, (this.runningBy.get(job.owner) ?? 0) + 1);
      this.peak = Math.max(this.peak, this.running);
      this.run(job);
    }
  }

  /** The first queued render of the first owner (in turn) still under its running share. */
  private take(): Job | undefined {
    for (const [owner, queue] of this.queues) {
      if ((this.runningBy.get(owner) ?? 0) >= this.share.running) continue;
      const job = queue.shift()!;
      this.queues.delete(owner);
      if (queue.length > 0) this.queues.set(owner, queue);
      this.queued--;
      return job;
    }
    return undefined;
  }

  private run(job: Job): void {
    const worker = this.idle.pop() ?? this.spawn();
    // A render that never ends would hold its thread for good: stop it, replace the thread, answer 503.
    const deadline = setTimeout(() => {
      done(false);
      job.reject(
        new ServiceError(
          'unavailable',
          'The PDF took too long to render',
          [{ field: 'pdf', issue: `not rendered within ${this.timeoutMs / 1000} seconds; retry later` }],
          RETRY_AFTER_SECONDS,
        ),
      );
    }, this.timeoutMs);
    const done = (reuse: boolean) => {
      clearTimeout(deadline);
      worker.onmessage = null;
      worker.onerror = null;
      if (reuse) this.idle.push(worker);
      else worker.terminate();
      this.running--;
      const left = this.runningBy.get(job.owner)! - 1;
      if (left > 0) this.runningBy.set(job.owner, left);
      else this.runningBy.delete(job.owner);
      this.next();
    };
    worker.onmessage = ({ data }: MessageEvent<{ pdf?: Uint8Array; error?: string }>) => {
      done(true);
      if (data.pdf) job.resolve(data.pdf);
      else job.reject(new Error(`PDF render failed: ${data.error}`));
    };
    // An uncaught error leaves the worker in an unknown state: it is replaced.
    worker.onerror = (event) => {
      done(false);
      job.reject(new Error(`PDF render failed: ${event.message}`));
    };
    worker.postMessage({ xml: job.xml, options: job.options });
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_ENTRY);
    (worker as Worker & { unref(): void }).unref(); // an idle render thread does not keep the process alive
    return worker;
  }
}

/** The process's one pool. */
export const pdfPool = new PdfPool();
