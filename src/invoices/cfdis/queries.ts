import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { executeSql, forDialect, type DbOrTx, type Tx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { cfdis, series, type Environment } from '../../db/schema/index.ts';
import { seriesQueries } from '../series/queries.ts';
import type { IntegratorReferences } from '../events.ts';
import type { StampValues } from './stamping.ts';

type Folio = { serie: string; folio: number };

/** The invoice queries that depend on the engine: merging the TFD values into the summary JSON; a folio taken last. */
export interface CfdiQueries {
  /**
   * Takes the next folio of the series named `serie` (else the default) and writes it onto the invoice `id`, inserted
   * earlier in this transaction without one; undefined, and nothing written, when no series matches.
   */
  takeFolio(tx: Tx, scope: { tenantId: string; environment: Environment }, serie: string | undefined, id: string): Promise<Folio | undefined>;
  /** Writes a folio allocateFolio took onto the invoice `id` (when takeFolio found no series). */
  writeFolio(tx: Tx, id: string, folio: Folio): Promise<void>;
  /**
   * Marks the invoice vigente with its stamp and the PAC that stamped it, only from `en_cola`, or from `withdrawn` (fallido by a withdrawal,
   * stamped by an attempt already in flight), and only while no other invoice holds the stamp's UUID; clears a failure
   * reason. When it moved, the invoice's external_id and metadata as the moved row has them (its cfdi.timbrado carries
   * them); undefined when it did not move.
   */
  recordStamp(tx: Tx, id: string, stamp: StampValues & { pac: string }, now: string, from: 'en_cola' | 'withdrawn'): Promise<IntegratorReferences | undefined>;
}

const FROM = { en_cola: eq(cfdis.status, 'en_cola'), withdrawn: and(eq(cfdis.status, 'fallido'), isNotNull(cfdis.withdrawnAt)) };
// The holder check in the move's own statement (one fewer per stamp); the UUIDs' unique index stays the backstop.
const UUID_FREE = sql`not exists (select 1 from ${cfdis} as held where held.uuid = ${sql.placeholder('uuid')} and held.id <> ${sql.placeholder('id')})`;

/** recordStamp with `merge` folding the TFD values (a JSON object parameter) into the summary. */
const recordStampWith = (merge: SQL): Pick<CfdiQueries, 'recordStamp'> => ({
  async recordStamp(tx, id, stamp, now, from) {
    // Prepared once per connection: every stamp runs it.
    const update = prepared(tx, `cfdis.recordStamp.${from}`, (d) =>
      d
        .update(cfdis)
        .set({
          status: 'vigente',
          uuid: sql`${sql.placeholder('uuid')}`,
          fechaTimbrado: sql`${sql.placeholder('fechaTimbrado')}`,
          summary: merge,
          failureReason: null,
          pac: sql`${sql.placeholder('pac')}`,
          updatedAt: sql`${sql.placeholder('now')}`,
        })
        .where(and(eq(cfdis.id, sql.placeholder('id')), FROM[from], UUID_FREE))
        // The row's latest version, locked by this update: the event needs no read of its own (one statement fewer).
        .returning({ externalId: cfdis.externalId, metadata: cfdis.metadata })
        .prepare(),
    );
    const [moved] = await update.execute({ id, uuid: stamp.uuid, fechaTimbrado: stamp.fechaTimbrado, tfd: JSON.stringify(stamp.tfd), pac: stamp.pac, now });
    return moved;
  },
});

const seriesOf = (tx: Tx, scope: { tenantId: string; environment: Environment }, serie: string | undefined) =>
  sql`${series.tenantId} = ${scope.tenantId} and ${series.environment} = ${scope.environment} and ${serie !== undefined ? sql`${series.serie} = ${serie}` : seriesQueries(tx).isDefault()}`;
const folioOf = (row: Record<string, unknown> | undefined): Folio | undefined => (row ? { serie: String(row.serie), folio: Number(row.folio) } : undefined);
const writeFolio: CfdiQueries['writeFolio'] = async (tx, id, { serie, folio }) => {
  await tx.update(cfdis).set({ serie, folio }).where(eq(cfdis.id, id));
};

const sqlite: CfdiQueries = {
  ...recordStampWith(sql`json_patch(${cfdis.summary}, ${sql.placeholder('tfd')})`),
  // One writer at a time: two statements hold nothing longer.
  async takeFolio(tx, scope, serie, id) {
    const bump = sql`update ${series} set next_folio = next_folio + 1 where ${seriesOf(tx, scope, serie)} returning serie, next_folio - 1 as folio`;
    const taken = folioOf((await executeSql(tx, bump))[0]);
    if (taken) await writeFolio(tx, id, taken);
    return taken;
  },
  writeFolio,
};
const postgres: CfdiQueries = {
  // The summary is JSON text on both engines; the TFD values are flat strings, so a shallow merge is json_patch's.
  ...recordStampWith(sql`(${cfdis.summary}::jsonb || ${sql.placeholder('tfd')}::jsonb)::text`),
  // One statement: the series row's lock, which every issuer of the series waits for, is held for no round trip to
  // this process but the commit's (docs/decisions.md, "The folio's transaction without the seal").
  takeFolio: async (tx, scope, serie, id) =>
    folioOf(
      (
        await executeSql(
          tx,
          sql`with taken as (
                update ${series} set next_folio = next_folio + 1 where ${seriesOf(tx, scope, serie)} returning serie, next_folio - 1 as folio
              )
              update ${cfdis} set serie = taken.serie, folio = taken.folio from taken where ${cfdis.id} = ${id}
              returning taken.serie, taken.folio`,
        )
      )[0],
    ),
  writeFolio,
};

export const cfdiQueries = (db: DbOrTx): CfdiQueries => forDialect(db, { sqlite, postgres });
