import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import type { PdfOptions } from '../../cfdi/pdf.ts';
import { ServiceError } from '../../lib/service-error.ts';

/**
 * PDF renders run on worker threads, so a 2,000-concepto invoice (seconds of CPU) never stalls the event loop that
 * answers every other request. At most `size` render at once, which also bounds their memory (each holds one
 * document); up to `waiting` more wait their turn, and beyond that the request is answered 503 with Retry-After.
 */
// availableParallelism() reads navigator.hardwareConcurrency, which a library may shadow (pdf.js in the tests does).
// A worker process of several gets its share of them from the supervisor (src/cluster.ts).
export const PDF_WORKERS = Number(process.env.CFDI_PDF_WORKERS) || Math.min(2, availableParallelism() || cpus().length || 1);
const PDF_WAITING = 16;
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
  xml: string;
  options: PdfOptions;
  resolve(pdf: Uint8Array): void;
  reject(err: Error): void;
}

export class PdfPool {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  /** Renders in progress now, and the most there ever were (tests check it never exceeds `size`). */
  running = 0;
  peak = 0;

  constructor(
    readonly size = PDF_WORKERS,
    readonly waiting = PDF_WAITING,
    public timeoutMs = PDF_RENDER_TIMEOUT_MS,
  ) {}

  render(xml: string, options: PdfOptions): Promise<Uint8Array> {
    if (this.running >= this.size && this.queue.length >= this.waiting) {
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
      this.queue.push({ xml, options, resolve, reject });
      this.next();
    });
  }

  /** Stops the idle workers (a busy one is stopped when its render ends). */
  close(): void {
    for (const worker of this.idle.splice(0)) worker.terminate();
  }

  private next(): void {
    while (this.running < this.size && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      this.peak = Math.max(this.peak, this.running);
      this.run(job);
    }
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
