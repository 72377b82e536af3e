import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { withTransaction, type DbOrTx } from '../../db/index.ts';
import { cfdiStampAttempts } from '../../db/schema/index.ts';
import type { PacRouter, StampAttempt } from '../../pac/failover.ts';
import type { Pac, StampOptions, StampResult } from '../../pac/types.ts';

/**
 * What stamping a sealed document (a CFDI or a retención) answered, the PAC that answered it (undefined: none did),
 * and every attempt at the document so far, this call's included (what a stamp's transaction decides from, without
 * reading it again).
 */
interface RoutedResult {
  result: StampResult;
  pac: string | undefined;
  attempts: readonly StampAttempt[];
  /** Nothing was sent: when the routing changes (see RoutedStamp.retryAt). */
  retryAt?: string;
}

/** Who stamps an environment's documents: the sandbox in this process, or the live PACs through the failover router. */
export interface Stamper {
  /** Stamps in this process without I/O: the issuing transaction may stamp too (one commit, no job). */
  readonly inProcess: boolean;
  /** The PAC an in-process stamp is recorded as made by (`sandbox`); a routed stamp names its own PAC. */
  readonly name: string;
  stamp(document: { id: string; tenantId: string }, sealedXml: string, options: StampOptions): Promise<RoutedResult>;
}

export function sandboxStamper(sandbox: Pac): Stamper {
  return {
    inProcess: sandbox.inProcess === true,
    name: sandbox.name,
    stamp: async (_document, sealedXml, options) => ({ result: await sandbox.stamp(sealedXml, options), pac: sandbox.name, attempts: [] }),
  };
}

/**
 * Another attempt at the same document was recorded after this one read the history (the queued job and the
 * synchronous attempt at once, or a job whose lease was lost and taken over): this one sends nothing more and leaves
 * the document to that attempt; a job tries again later, from the history as it is then.
 */
export class StampInFlight extends Error {}

/**
 * Where one kind of document keeps its stamping attempts (a table per kind, each in the module that owns it):
 * what routedStamper reads and writes, so CFDIs and retenciones route by the same rules.
 */
export interface StampAttemptLog {
  /** The document's attempts, oldest first. */
  attemptsOf(db: DbOrTx, documentId: string): Promise<StampAttempt[]>;
  record(db: DbOrTx, document: { id: string; tenantId: string }, attempt: StampAttempt): Promise<void>;
}

/**
 * Live stamping: the document's attempts so far (any instance's) decide where it may go; `sent` is recorded before
 * each request leaves and each answer as it comes, each in its own commit, so a process killed mid-request leaves its
 * document with that PAC for PAC_AMBIGUOUS_WINDOW_SECONDS, never free for another. A `sent` is recorded only if no
 * other attempt was recorded since this call read the history (one transaction: the history, then the insert), so two
 * callers at once never route the same document from the same stale history.
 */
export function routedStamper(db: Db, router: PacRouter, log: StampAttemptLog): Stamper {
  return {
    inProcess: false,
    name: 'failover',
    async stamp(document, sealedXml, options) {
      const history = await log.attemptsOf(db, document.id);
      let known = history.length;
      const routed = await router.stamp(sealedXml, options, history, async (attempt) => {
        if (attempt.outcome === 'sent') {
          // serializable: the attempts read decide the 'sent' (no two callers route from one history)
          const claimed = await withTransaction(db, { isolation: 'serializable', name: 'pac.sent' }, async (tx) => {
            if ((await log.attemptsOf(tx, document.id)).length !== known) return false;
            await log.record(tx, document, attempt);
            return true;
          });
          if (!claimed) throw new StampInFlight(`another attempt at ${document.id} was recorded meanwhile: not sent to ${attempt.pac}`);
        } else await log.record(db, document, attempt);
        known++;
      });
      return { result: routed.result, pac: routed.pac, attempts: [...history, ...routed.attempts], retryAt: routed.retryAt };
    },
  };
}

/** A CFDI's stamping attempts: cfdi_stamp_attempts. */
export const cfdiStampAttemptLog: StampAttemptLog = {
  attemptsOf: (db, cfdiId) =>
    db
      .select({ pac: cfdiStampAttempts.pac, outcome: cfdiStampAttempts.outcome, at: cfdiStampAttempts.at })
      .from(cfdiStampAttempts)
      .where(eq(cfdiStampAttempts.cfdiId, cfdiId))
      .orderBy(asc(cfdiStampAttempts.id)),
  record: async (db, cfdi, attempt) => {
    await db.insert(cfdiStampAttempts).values({ cfdiId: cfdi.id, tenantId: cfdi.tenantId, ...attempt });
  },
};
