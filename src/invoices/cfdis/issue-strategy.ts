import { sealComprobante } from '../../cfdi/build.ts';
import type { CsdSigner } from '../../cfdi/csd.ts';
import type { ComprobanteModel } from '../../cfdi/model.ts';
import { withGroupCommit, type Ahead, type Db, type Isolation, type Tx } from '../../db/index.ts';
import type { Environment } from '../../db/schema/index.ts';
import type { SandboxScenario, StampResult } from '../../pac/types.ts';
import { expectedFolio, type Scope } from '../series/service.ts';
import type { Stamper } from './stamp-routing.ts';

/** A document sealed for its folio, and what the stamper answered when it stamps in this process (else undefined). */
export interface SealedDocument {
  sealed: { xml: string };
  attempted?: StampResult;
}

/** Seals a model for the folio it carries (and stamps it, in process): the expensive part of an issuing transaction. */
type Seal = (model: ComprobanteModel) => Promise<SealedDocument>;

/** A model to seal ahead, for the folio its series is expected to give: one whose validity rests on nothing another request changes. */
export interface SealAhead {
  scope: Scope;
  serie: string | undefined;
  model: ComprobanteModel;
}

/**
 * How an invoice's issuing transaction runs: the throughput strategy, kept out of the business flow (issue.ts). Chosen
 * once per request from what the stamper and the engine allow:
 *  - a group commit (withGroupCommit): on SQLite, invoices arriving together share one COMMIT and one WAL sync; on
 *    PostgreSQL, one transaction per invoice (read committed unless its facts need serializable: issueCfdi);
 *  - sealing ahead: in a SQLite group, each invoice is sealed for the folio it expects while those before it are written,
 *    so a group's signatures run side by side on WebCrypto's threads (used only if that folio is the one taken);
 *  - stamping in the transaction: a stamper in this process (the sandbox, without a scenario) stamps right after the
 *    seal, so the invoice is written once, vigente, with no job and one commit instead of two.
 */
interface IssueStrategy {
  /** Runs `reserve` in the issuing transaction; its `seal` seals (and stamps) the model it is given, or hands over what was sealed ahead for it. */
  transaction<T>(reserve: (tx: Tx, seal: Seal) => Promise<T>, ahead: SealAhead | undefined, isolation: Isolation): Promise<T>;
}

export function issueStrategy(
  db: Db,
  stamper: Stamper,
  signer: CsdSigner,
  target: { id: string; tenantId: string; environment: Environment },
  scenario: SandboxScenario | undefined,
): IssueStrategy {
  const stampsInTransaction = stamper.inProcess && scenario === undefined;
  const sealAndStamp: Seal = async (model) => {
    const sealed = await sealComprobante(model, signer);
    return { sealed, attempted: stampsInTransaction ? (await stamper.stamp(target, sealed.xml, { tenantId: target.tenantId })).result : undefined };
  };
  return {
    async transaction(reserve, sealAhead, isolation) {
      let early: { serie: string; folio: number; sealing: Promise<SealedDocument> } | undefined;
      const ahead: Ahead | undefined = sealAhead
        ? async (tx, group) => {
            const expected = await expectedFolio(tx, sealAhead.scope, sealAhead.serie, group);
            early = { ...expected, sealing: sealAndStamp({ ...sealAhead.model, serie: expected.serie, folio: String(expected.folio) }) };
            early.sealing.catch(() => undefined); // unused when the guess was wrong; its error, if used, is reserve's
          }
        : undefined;
      // The early seal only for the folio it was made for: the guess is wrong when a caller before it failed or took another series.
      const seal: Seal = (model) => {
        const guess = early;
        return guess !== undefined && guess.serie === model.serie && String(guess.folio) === model.folio ? guess.sealing : sealAndStamp(model);
      };
      return withGroupCommit(db, { isolation, name: 'cfdis.issue' }, (tx) => reserve(tx, seal), ahead);
    },
  };
}
