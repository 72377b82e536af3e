import type { z } from '@hono/zod-openapi';
import { and, eq, inArray } from 'drizzle-orm';
import { withGroupCommit } from '../../db/index.ts';
import { retenciones } from '../../db/schema/index.ts';
import type { AuditInTransaction } from '../../lib/audit.ts';
import type { Actor } from '../../lib/backend.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { zodDetails } from '../../lib/errors.ts';
import { ServiceError, type ErrorDetail } from '../../lib/service-error.ts';
import { requireStamper } from '../cfdis/issue.ts';
import { check, commitRetencion, type RetencionDeps } from './issue.ts';
import type { RetencionBatchItemSchema, RetencionBatchResultSchema } from './schemas.ts';

type BatchItem = z.output<typeof RetencionBatchItemSchema>;
type ItemResult = z.infer<typeof RetencionBatchResultSchema>['results'][number];

/**
 * Items checked and issued together: their checks run side by side, then their transactions are queued in item order,
 * so that on SQLite they share group commits (withGroupCommit: one COMMIT for up to 16); on PostgreSQL each is its own.
 */
const WINDOW = 16;
/** Keys looked up per statement (SQLite's bound parameters). */
const LOOKUP_CHUNK = 500;

/** An item that failed its schema: the request's schema keeps zod's issues in it instead (RetencionBatchRequestSchema). */
const malformedOf = (item: object): z.core.$ZodIssue[] | undefined => ('malformed' in item ? (item.malformed as z.core.$ZodIssue[]) : undefined);

const hashOf = (item: BatchItem) => {
  const { idempotency_key: _, ...request } = item;
  return sha256Hex(JSON.stringify(request));
};

interface Issued {
  id: string;
  uuid: string | null;
  folioInt: string;
  batchHash: string | null;
}

/** The retenciones already issued under these keys, in the caller's tenant and environment. */
async function issuedByKey(deps: RetencionDeps, actor: Actor, keys: string[]): Promise<Map<string, Issued>> {
  const found = new Map<string, Issued>();
  for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
    const rows = await deps.db
      .select({ key: retenciones.batchKey, id: retenciones.id, uuid: retenciones.uuid, folioInt: retenciones.folioInt, batchHash: retenciones.batchHash })
      .from(retenciones)
      .where(
        and(
          eq(retenciones.tenantId, actor.tenantId),
          eq(retenciones.environment, actor.environment),
          inArray(retenciones.batchKey, keys.slice(i, i + LOOKUP_CHUNK)),
        ),
      );
    for (const { key, ...row } of rows) if (key !== null) found.set(key, row);
  }
  return found;
}

const invalid = (index: number, errors: ErrorDetail[]): ItemResult => ({ index, status: 'invalid', errors });

/** The answer for an item whose key was used before: the same item is a duplicate, another item under it is refused. */
function answerIssued(index: number, issued: Issued, hash: string): ItemResult {
  if (issued.batchHash !== hash)
    return invalid(index, [{ field: 'idempotency_key', issue: `already issued retención ${issued.id} with another item: send a new key for a new document` }]);
  return { index, status: 'duplicate', id: issued.id, uuid: issued.uuid, folio_int: issued.folioInt };
}

/**
 * POST /retenciones/batch: every item checked and issued as POST /retenciones issues one, each in its own transaction
 * (its folio, document, event and audit entry), idempotent per item by its idempotency_key. An item that fails is
 * answered `invalid` with its problems and takes no folio; the others are issued. docs/decisions.md, "Retenciones: the batch".
 */

export async function issueRetencionBatch(deps: RetencionDeps, actor: Actor, items: BatchItem[], opts: { auditIn?: AuditInTransaction } = {}) {
  const stamper = requireStamper(deps, actor);
  const results: ItemResult[] = new Array(items.length);
  const firstIndex = new Map<string, number>();
  const pending: { index: number; item: BatchItem; hash: string }[] = [];
  for (const [index, item] of items.entries()) {
    const malformed = malformedOf(item);
    if (malformed) {
      results[index] = invalid(index, zodDetails({ issues: malformed } as z.ZodError));
      continue;
    }
    const earlier = firstIndex.get(item.idempotency_key);
    if (earlier !== undefined) {
      results[index] = invalid(index, [{ field: 'idempotency_key', issue: `repeats the key of item ${earlier}: each item needs its own` }]);
      continue;
    }
    firstIndex.set(item.idempotency_key, index);
    pending.push({ index, item, hash: hashOf(item) });
  }

  const before = await issuedByKey(
    deps,
    actor,
    pending.map((p) => p.item.idempotency_key),
  );
  const fresh = pending.filter(({ index, item, hash }) => {
    const issued = before.get(item.idempotency_key);
    if (issued) results[index] = answerIssued(index, issued, hash);
    return !issued;
  });

  for (let i = 0; i < fresh.length; i += WINDOW) {
    const window = fresh.slice(i, i + WINDOW);
    const checked = await Promise.all(window.map(({ item: { idempotency_key: _, ...req } }) => check(deps, actor, req)));
    const outcomes = await Promise.allSettled(
      window.map(async ({ index, item, hash }, j): Promise<ItemResult> => {
        const { errors, model, signer } = checked[j]!;
        if (errors.length > 0 || !model || !signer) return invalid(index, errors);
        const row = await commitRetencion(
          deps,
          actor,
          stamper,
          { model, signer, serie: item.serie },
          { batchKey: { key: item.idempotency_key, hash }, auditIn: opts.auditIn, transaction: withGroupCommit },
        );
        return { index, status: row.status === 'en_cola' ? 'queued' : 'created', id: row.id, uuid: row.uuid, folio_int: row.folioInt };
      }),
    );
    let failure: unknown;
    for (const [j, outcome] of outcomes.entries()) {
      const { index, item, hash } = window[j]!;
      if (outcome.status === 'fulfilled') results[index] = outcome.value;
      else if (outcome.reason instanceof ServiceError) {
        // Another request issued this key meanwhile (the unique index refused this one), or the item itself was refused.
        const issued = (await issuedByKey(deps, actor, [item.idempotency_key])).get(item.idempotency_key);
        results[index] = issued ? answerIssued(index, issued, hash) : invalid(index, outcome.reason.details);
      } else {
        const issued = (await issuedByKey(deps, actor, [item.idempotency_key])).get(item.idempotency_key);
        if (issued) results[index] = answerIssued(index, issued, hash);
        else failure ??= outcome.reason;
      }
    }
    // Not the item's fault (storage): the request fails; what was issued stays, and a retry answers it `duplicate`.
    if (failure) throw failure;
  }
  const count = (status: ItemResult['status']) => results.filter((r) => r.status === status).length;
  return { results, created: count('created'), queued: count('queued'), duplicate: count('duplicate'), invalid: count('invalid') };
}
