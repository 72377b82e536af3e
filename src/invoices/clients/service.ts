import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import type { ReceptorInput } from '../../cfdi/input.ts';
import { checkReceptor } from '../../cfdi/rules/receptor.ts';
import type { Db } from '../../db/client.ts';
import { clients, type Environment } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { withTransaction } from '../../db/index.ts';
import type { IdempotencyClaim } from '../../lib/idempotency.ts';
import { invalidInput, notFound } from '../../lib/service-error.ts';
import type { IdentityDirectory } from '../../lib/identity.ts';
import { newId } from '../../lib/ids.ts';
import { decodeCursor, page } from '../../lib/pagination.ts';
import { toClient, type ClientCreate, type ClientPatch, type ClientRow } from './schemas.ts';

export interface ClientDeps {
  db: Db;
  now: () => Date;
  identity: IdentityDirectory;
}

export interface Scope {
  tenantId: string;
  environment: Environment;
}

const scoped = (s: Scope) => and(eq(clients.tenantId, s.tenantId), eq(clients.environment, s.environment));

/** Upper case without diacritics: "Ñandú" and "nandu" both become "NANDU". */
const searchKey = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();
/** Escapes LIKE wildcards so a search for "50%" means the characters. */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

async function getClientRow(db: Db, scope: Scope, id: string): Promise<ClientRow | undefined> {
  return (
    await db
      .select()
      .from(clients)
      .where(and(eq(clients.id, id), scoped(scope)))
  )[0];
}

async function getOr404(deps: ClientDeps, actor: Actor, id: string): Promise<ClientRow> {
  const row = await getClientRow(deps.db, actor, id);
  if (!row) throw notFound('Client');
  return row;
}

/**
 * SAT receptor rules on the client as a whole. A generic RFC's domicilio fiscal must be the issuer's postal code
 * (CFDI40149), so it is checked against the tenant's: any invoice to that client would fail otherwise.
 */
async function assertReceptor(deps: ClientDeps, actor: Actor, fields: ReceptorInput) {
  const now = deps.now();
  const tenant = await deps.identity.tenantById(actor.tenantId);
  const problems = checkReceptor(fields, { fecha: now.toISOString(), lugarExpedicion: tenant?.codigoPostal }, '');
  if (problems.length > 0) throw invalidInput('Invalid client', problems);
}

const receptorOf = (r: {
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  domicilio_fiscal: string;
  uso_cfdi: string;
  residencia_fiscal?: string | null;
  num_reg_id_trib?: string | null;
}): ReceptorInput => ({
  rfc: r.rfc,
  nombre: r.nombre,
  regimen_fiscal: r.regimen_fiscal,
  domicilio_fiscal: r.domicilio_fiscal,
  uso_cfdi: r.uso_cfdi,
  ...(r.residencia_fiscal != null && { residencia_fiscal: r.residencia_fiscal }),
  ...(r.num_reg_id_trib != null && { num_reg_id_trib: r.num_reg_id_trib }),
});

const wireOf = (row: ClientRow) => ({
  rfc: row.rfc,
  nombre: row.nombre,
  regimen_fiscal: row.regimenFiscal,
  domicilio_fiscal: row.domicilioFiscal,
  uso_cfdi: row.usoCfdi,
  email: row.email,
  residencia_fiscal: row.residenciaFiscal,
  num_reg_id_trib: row.numRegIdTrib,
});

export async function createClient(deps: ClientDeps, actor: Actor, input: ClientCreate, bindIdempotency?: IdempotencyClaim['bind']) {
  await assertReceptor(deps, actor, receptorOf(input));
  const now = deps.now();
  const stamp = now.toISOString();
  const id = newId('cli', now.getTime());
  // read committed: one insert and the claim's fenced bind
  await withTransaction(deps.db, { isolation: 'read committed', name: 'clients.create' }, async (tx) => {
    await tx.insert(clients).values({
      id,
      tenantId: actor.tenantId,
      environment: actor.environment,
      rfc: input.rfc,
      nombre: input.nombre,
      nombreSearch: searchKey(input.nombre),
      regimenFiscal: input.regimen_fiscal,
      domicilioFiscal: input.domicilio_fiscal,
      usoCfdi: input.uso_cfdi,
      email: input.email ?? null,
      residenciaFiscal: input.residencia_fiscal ?? null,
      numRegIdTrib: input.num_reg_id_trib ?? null,
      metadata: input.metadata ?? {},
      createdAt: stamp,
      updatedAt: stamp,
    });
    await bindIdempotency?.(tx, id);
  });
  return toClient(await getOr404(deps, actor, id));
}

/** Newest ids last (keyset on id). `q` matches an RFC prefix or any part of the name, ignoring case and accents. */
export async function listClients(deps: ClientDeps, actor: Actor, query: { limit: number; cursor?: string; q?: string }) {
  const after = decodeCursor(query.cursor);
  const q = query.q?.trim();
  const search = q
    ? or(
        sql`${clients.rfc} like ${likeLiteral(q.toUpperCase()) + '%'} escape '\\'`,
        sql`${clients.nombreSearch} like ${'%' + likeLiteral(searchKey(q)) + '%'} escape '\\'`,
      )
    : undefined;
  const rows = await deps.db
    .select()
    .from(clients)
    .where(and(scoped(actor), search, after ? gt(clients.id, after) : undefined))
    .orderBy(asc(clients.id))
    .limit(query.limit + 1);
  return page(rows, query.limit, toClient);
}

export const getClient = async (deps: ClientDeps, actor: Actor, id: string) => toClient(await getOr404(deps, actor, id));

/** Applies the change, then checks the resulting client as a whole (a field may only be valid with another). */
export async function updateClient(deps: ClientDeps, actor: Actor, id: string, patch: ClientPatch) {
  const row = await getOr404(deps, actor, id);
  const { metadata, ...fields } = patch;
  const merged = { ...wireOf(row) };
  for (const [k, v] of Object.entries(fields) as [keyof typeof merged, string | null | undefined][]) {
    if (v !== undefined) (merged as Record<string, string | null>)[k] = v;
  }
  await assertReceptor(deps, actor, receptorOf(merged));
  await deps.db
    .update(clients)
    .set({
      rfc: merged.rfc,
      nombre: merged.nombre,
      nombreSearch: searchKey(merged.nombre),
      regimenFiscal: merged.regimen_fiscal,
      domicilioFiscal: merged.domicilio_fiscal,
      usoCfdi: merged.uso_cfdi,
      email: merged.email,
      residenciaFiscal: merged.residencia_fiscal,
      numRegIdTrib: merged.num_reg_id_trib,
      metadata: metadata ?? row.metadata,
      updatedAt: deps.now().toISOString(),
    })
    .where(and(eq(clients.id, row.id), scoped(actor)));
  return getClient(deps, actor, id);
}

/** Invoices already issued keep the receptor data they were issued with. */
export async function deleteClient(deps: ClientDeps, actor: Actor, id: string) {
  const row = await getOr404(deps, actor, id);
  await deps.db.delete(clients).where(and(eq(clients.id, row.id), scoped(actor)));
  return { id: row.id, deleted: true as const };
}

/**
 * For the CFDI engine (receptor_id): the client's receptor fields, named as checkReceptor takes them, or undefined
 * when the id is not a client of this tenant and environment.
 */
export async function getClientReceptor(db: Db, scope: Scope, id: string): Promise<ReceptorInput | undefined> {
  const row = await getClientRow(db, scope, id);
  return row ? receptorOf(wireOf(row)) : undefined;
}

/** Where the client's invoices are emailed by default (POST /cfdis/{id}/email without `to`), when it has an address. */
export async function getClientEmail(db: Db, scope: Scope, id: string): Promise<string | undefined> {
  return (await getClientRow(db, scope, id))?.email ?? undefined;
}
