import { eq } from 'drizzle-orm';
import { findTenant, forgetTenant } from './lookup.ts';
import type { z } from '@hono/zod-openapi';
import { tenants } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { ApiError, notFound } from '../../lib/errors.ts';
import type { AuthDeps } from '../deps.ts';
import { regimenProblem, toTenant, type TenantPatchSchema } from './schemas.ts';

function getTenantRow(deps: AuthDeps, actor: Actor) {
  const row = findTenant(deps.db, actor.tenantId, deps.now().getTime());
  if (!row) throw notFound('Tenant');
  return row;
}

export const getMyTenant = (deps: AuthDeps, actor: Actor) => toTenant(getTenantRow(deps, actor));

/** The RFC never changes (certificates and issued invoices are bound to it); name, régimen and postal code may. */
export function updateMyTenant(deps: AuthDeps, actor: Actor, input: z.infer<typeof TenantPatchSchema>) {
  const current = getTenantRow(deps, actor);
  if (input.regimen_fiscal !== undefined) {
    const problem = regimenProblem(current.rfc, input.regimen_fiscal);
    if (problem) throw new ApiError(422, 'Invalid input', [{ field: 'regimen_fiscal', issue: problem }]);
  }
  deps.db
    .update(tenants)
    .set({
      ...(input.nombre !== undefined && { nombre: input.nombre }),
      ...(input.regimen_fiscal !== undefined && { regimenFiscal: input.regimen_fiscal }),
      ...(input.codigo_postal !== undefined && { codigoPostal: input.codigo_postal }),
      updatedAt: deps.now().toISOString(),
    })
    .where(eq(tenants.id, actor.tenantId))
    .run();
  forgetTenant(deps.db, actor.tenantId);
  return getMyTenant(deps, actor);
}
