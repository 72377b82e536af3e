import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { forDialect, type DbOrTx, type Tx } from '../../db/index.ts';
import { prepared } from '../../db/prepared.ts';
import { cfdis } from '../../db/schema/index.ts';
import type { StampValues } from './stamping.ts';

/** The invoice queries that depend on the engine: merging the TFD values into the summary JSON. */
export interface CfdiQueries {
  /**
   * Marks the invoice vigente with its stamp and the PAC that stamped it, only from `en_cola`, or from `withdrawn` (fallido by a withdrawal,
   * stamped by an attempt already in flight); clears a failure reason. True when it moved.
   */
  recordStamp(tx: Tx, id: string, stamp: StampValues & { pac: string }, now: string, from: 'en_cola' | 'withdrawn'): Promise<boolean>;
}

const FROM = { en_cola: eq(cfdis.status, 'en_cola'), withdrawn: and(eq(cfdis.status, 'fallido'), isNotNull(cfdis.withdrawnAt)) };

/** recordStamp with `merge` folding the TFD values (a JSON object parameter) into the summary. */
const recordStampWith = (merge: SQL): CfdiQueries => ({
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
        .where(and(eq(cfdis.id, sql.placeholder('id')), FROM[from]))
        .returning({ id: cfdis.id })
        .prepare(),
    );
    const moved = await update.execute({ id, uuid: stamp.uuid, fechaTimbrado: stamp.fechaTimbrado, tfd: JSON.stringify(stamp.tfd), pac: stamp.pac, now });
    return moved.length === 1;
  },
});

const sqlite = recordStampWith(sql`json_patch(${cfdis.summary}, ${sql.placeholder('tfd')})`);
// The summary is JSON text on both engines; the TFD values are flat strings, so a shallow merge is json_patch's.
const postgres = recordStampWith(sql`(${cfdis.summary}::jsonb || ${sql.placeholder('tfd')}::jsonb)::text`);

export const cfdiQueries = (db: DbOrTx): CfdiQueries => forDialect(db, { sqlite, postgres });
