import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Tx } from '../../db/index.ts';
import { cfdis, cfdiStatusChanges, type CfdiStatus, type Environment } from '../../db/schema/index.ts';
import type { IntegratorReferences } from '../events.ts';
import { cfdiQueries } from './queries.ts';
import type { StampValues } from './stamping.ts';

/**
 * The one owner of a CFDI's status (docs/decisions.md, "One CFDI lifecycle"). Every move is a conditional update from
 * the expected status, one cfdi_status_changes row, and the reactions registered for it (events, emails, receipts,
 * payments), all in the caller's transaction. Nothing else writes `cfdis.status`; tests/invoices/cfdis/lifecycle.test.ts
 * fails when something does.
 */

export interface LifecycleCfdi {
  id: string;
  tenantId: string;
  environment: Environment;
}

/** Where a CFDI comes from: a status, or `new` for one inserted already in its first status (no move, no history row). */
export type From = CfdiStatus | 'new';

/** One move as its reactions see it. */
export interface Move {
  cfdi: LifecycleCfdi;
  from: From;
  to: CfdiStatus;
  reason: string;
  at: Date;
  /** To `fallido` by a withdrawal, or from `fallido` that was one (stamped by an attempt already in flight). */
  withdrawn: boolean;
  /** The UUID a move to `vigente` stamped, or the CFDI's own once stamped. */
  uuid: string | null;
  /** What the caller adds to the move's event (the cancellation's motivo and SAT status). */
  detail: Record<string, unknown>;
  /** The CFDI's external_id and metadata when the move's own update returned them (a stamp's), for its event. */
  references?: IntegratorReferences;
  /** TransitionOptions.tookNoReceipts. */
  tookNoReceipts: boolean;
}

/** A reaction to a move, in its transaction; returns how many jobs it queued (webhook deliveries, emails), if any. */
export type Reaction = (tx: Tx, move: Move) => Promise<number | undefined | void>;

const registry = new Map<string, Map<string, Reaction>>();
const keyOf = (from: From | '*', to: CfdiStatus | '*') => `${from}>${to}`;

/**
 * Registers a reaction under a name (at composition time, registerLifecycleReactions): registering a name again
 * replaces it, so that every app a process composes shares one set. `from` and `to` may be `*`: any.
 */
export function onTransition(from: From | '*' | From[], to: CfdiStatus | '*', name: string, reaction: Reaction): void {
  for (const f of Array.isArray(from) ? from : [from]) {
    const key = keyOf(f, to);
    const named = registry.get(key) ?? new Map<string, Reaction>();
    named.set(name, reaction);
    registry.set(key, named);
  }
}

async function react(tx: Tx, move: Move): Promise<number> {
  // A move nobody reacts to would silently skip receipts, emails and events: refuse to run uncomposed.
  if (registry.size === 0) throw new Error('CFDI lifecycle reactions are not registered (createApp registers them)');
  let jobs = 0;
  for (const key of [keyOf(move.from, move.to), keyOf('*', move.to), keyOf(move.from, '*'), keyOf('*', '*')])
    for (const reaction of registry.get(key)?.values() ?? []) jobs += (await reaction(tx, move)) ?? 0;
  return jobs;
}

export interface TransitionOptions {
  reason: string;
  at: Date;
  /** To `vigente` by a stamp: its values and the PAC that stamped it. */
  stamp?: StampValues & { pac: string };
  /** To `fallido`: the reason shown as failure_reason (default `reason`); `withdrawn` marks a withdrawal. */
  withdrawn?: boolean;
  /** The CFDI's UUID, for reactions of a stamped CFDI's moves (cancellation). */
  uuid?: string | null;
  detail?: Record<string, unknown>;
  /**
   * Writes that stand or fall with the move and decide nothing (the stamped document, the job it closes, the audit
   * entry): sent with its history row once the move is made, so on PostgreSQL they travel in one round trip.
   */
  alongside?: (tx: Tx) => Promise<unknown>[];
  /**
   * The caller knows the CFDI holds no receipts: it was issued by this request on a path that marks none
   * (issueSealingAfterFolio) and has not stood until this move, so nothing could give it any. Its stamp reads none.
   */
  tookNoReceipts?: boolean;
}

/**
 * The conditional update of one move; undefined when the CFDI was not in `from` (a withdrawn one, for a late stamp from
 * fallido). A stamp's answers the CFDI's integrator references too.
 */
async function update(
  tx: Tx,
  cfdi: LifecycleCfdi,
  from: CfdiStatus,
  to: CfdiStatus,
  o: TransitionOptions,
): Promise<{ references?: IntegratorReferences } | undefined> {
  const at = o.at.toISOString();
  if (to === 'vigente' && o.stamp) {
    if (from !== 'en_cola' && from !== 'fallido') throw new Error(`a stamp moves a CFDI from en_cola or a withdrawn fallido, not from ${from}`);
    const references = await cfdiQueries(tx).recordStamp(tx, cfdi.id, o.stamp, at, from === 'en_cola' ? 'en_cola' : 'withdrawn');
    return references && { references };
  }
  const set =
    to === 'fallido' ? { status: to, failureReason: o.reason, updatedAt: at, ...(o.withdrawn ? { withdrawnAt: at } : {}) } : { status: to, updatedAt: at };
  const moved = await tx
    .update(cfdis)
    .set(set)
    .where(and(eq(cfdis.id, cfdi.id), eq(cfdis.status, from), from === 'fallido' && to === 'vigente' ? isNotNull(cfdis.withdrawnAt) : undefined))
    .returning({ id: cfdis.id });
  return moved.length === 1 ? {} : undefined;
}

/**
 * Moves a CFDI from `from` to `to`: the conditional update, its history row, its reactions. Undefined when it was not
 * in `from` (nothing written); otherwise how many jobs the reactions queued (the caller wakes the worker).
 */
export async function transition(tx: Tx, cfdi: LifecycleCfdi, from: CfdiStatus, to: CfdiStatus, o: TransitionOptions): Promise<number | undefined> {
  const moved = await update(tx, cfdi, from, to, o);
  if (!moved) return undefined;
  const history = tx
    .insert(cfdiStatusChanges)
    .values({ cfdiId: cfdi.id, tenantId: cfdi.tenantId, fromStatus: from, toStatus: to, reason: o.reason, at: o.at.toISOString() })
    .then(() => undefined);
  await Promise.all([history, ...(o.alongside?.(tx) ?? [])]);
  const withdrawn = o.withdrawn ?? (from === 'fallido' && to === 'vigente');
  const uuid = o.stamp?.uuid ?? o.uuid ?? null;
  const tookNoReceipts = o.tookNoReceipts ?? false;
  return react(tx, { cfdi, from, to, reason: o.reason, at: o.at, withdrawn, uuid, detail: o.detail ?? {}, references: moved.references, tookNoReceipts });
}

/**
 * A CFDI inserted already in its first status (the issuing transaction): no move, so no history row (its created_at
 * says when), but the reactions of arriving there, such as a stamp's. How many jobs they queued.
 */
export function born(tx: Tx, cfdi: LifecycleCfdi, status: CfdiStatus, o: { at: Date; uuid: string | null }): Promise<number> {
  return react(tx, { cfdi, from: 'new', to: status, reason: 'issued', at: o.at, withdrawn: false, uuid: o.uuid, detail: {}, tookNoReceipts: false });
}

/**
 * A CFDI's stamp state (status and UUID) with its row locked to the end of the caller's transaction (an update that
 * changes nothing, so no status moves here), for a write the stamp must see: a sending recorded while the invoice is
 * queued. On PostgreSQL the stamp commits read committed, which serializable's checks do not cover: without the lock,
 * the stamp could read the waiting sendings before this one commits while this one read the invoice unstamped, and
 * the sending would wait for ever. With it, the stamp's move waits for this commit and then sees the sending, or this
 * one re-runs (40001) and sees the stamp.
 */
export async function lockedStampStateOf(tx: Tx, id: string): Promise<{ status: CfdiStatus; uuid: string | null } | undefined> {
  return (
    await tx
      .update(cfdis)
      .set({ updatedAt: sql`${cfdis.updatedAt}` })
      .where(eq(cfdis.id, id))
      .returning({ status: cfdis.status, uuid: cfdis.uuid })
  )[0];
}
