import { eq } from 'drizzle-orm';
import { PDFDocument } from 'pdf-lib';
import { isJpeg, isPng, jpegProblem, pngProblem } from './image-check.ts';
import { findBranding, findTenant, forgetTenant } from './lookup.ts';
import { announceIdentityChange } from '../../lib/identity-changes.ts';
import type { z } from '@hono/zod-openapi';
import { tenantBranding, tenants } from '../../db/schema/index.ts';
import type { Actor } from '../../lib/backend.ts';
import { invalidInput, notFound, ServiceError } from '../../lib/service-error.ts';
import type { AuthDeps } from '../deps.ts';
import type { Db } from '../../db/client.ts';
import type { Plan } from '../../lib/plans.ts';
import { MAX_LOGO_BYTES, regimenProblem, toTenant, type TenantPatchSchema } from './schemas.ts';

async function getTenantRow(deps: AuthDeps, actor: Actor) {
  const row = await findTenant(deps.db, actor.tenantId, deps.now().getTime());
  if (!row) throw notFound('Tenant');
  return row;
}

/** One clock read and no helper between the two cached reads: GET /tenants/me is the gateway's benchmark route. */
export const getMyTenant = async (deps: AuthDeps, actor: Actor) => {
  const nowMs = deps.now().getTime();
  const row = await findTenant(deps.db, actor.tenantId, nowMs);
  if (!row) throw notFound('Tenant');
  return toTenant(row, await findBranding(deps.db, actor.tenantId, nowMs));
};

/** Drops the cached branding, so that the answer to this write (the profile) shows it. */
async function upsertBranding(deps: AuthDeps, tenantId: string, set: Partial<typeof tenantBranding.$inferInsert>) {
  const updatedAt = deps.now().toISOString();
  await deps.db
    .insert(tenantBranding)
    .values({ tenantId, ...set, updatedAt })
    .onConflictDoUpdate({ target: tenantBranding.tenantId, set: { ...set, updatedAt } });
  forgetTenant(deps.db, tenantId);
}

/** The RFC never changes (certificates and issued invoices are bound to it); name, régimen, postal code and fiscal address may. */
export async function updateMyTenant(deps: AuthDeps, actor: Actor, input: z.infer<typeof TenantPatchSchema>) {
  const current = await getTenantRow(deps, actor);
  if (input.regimen_fiscal !== undefined) {
    const problem = regimenProblem(current.rfc, input.regimen_fiscal);
    if (problem) throw invalidInput('Invalid input', [{ field: 'regimen_fiscal', issue: problem }]);
  }
  if (input.accent_color !== undefined) await upsertBranding(deps, actor.tenantId, { accentColor: input.accent_color?.toUpperCase() ?? null });
  await deps.db
    .update(tenants)
    .set({
      ...(input.nombre !== undefined && { nombre: input.nombre }),
      ...(input.regimen_fiscal !== undefined && { regimenFiscal: input.regimen_fiscal }),
      ...(input.codigo_postal !== undefined && { codigoPostal: input.codigo_postal }),
      ...(input.reply_to !== undefined && { replyTo: input.reply_to }),
      ...(input.domicilio_fiscal !== undefined && { domicilioFiscal: input.domicilio_fiscal }),
      updatedAt: deps.now().toISOString(),
    })
    .where(eq(tenants.id, actor.tenantId));
  forgetTenant(deps.db, actor.tenantId);
  return getMyTenant(deps, actor);
}

/** Stores the logo the invoice PDF shows, once it is whole and the PDF library has shown it can embed it. */
export async function uploadLogo(deps: AuthDeps, actor: Actor, file: File) {
  if (file.size > MAX_LOGO_BYTES) throw new ServiceError('too_large', 'File too large', [{ field: 'logo', issue: `must be at most ${MAX_LOGO_BYTES} bytes` }]);
  const bytes = Buffer.from(await file.arrayBuffer());
  const type = isPng(bytes) ? 'image/png' : isJpeg(bytes) ? 'image/jpeg' : undefined;
  if (!type) throw invalidInput('Invalid input', [{ field: 'logo', issue: 'must be a PNG or JPEG image' }]);
  const problem = type === 'image/png' ? pngProblem(bytes) : jpegProblem(bytes);
  if (problem) throw invalidInput('Invalid input', [{ field: 'logo', issue: `${type === 'image/png' ? 'PNG' : 'JPEG'} ${problem}` }]);
  try {
    const probe = await PDFDocument.create();
    await (type === 'image/png' ? probe.embedPng(bytes) : probe.embedJpg(bytes));
  } catch {
    throw invalidInput('Invalid input', [{ field: 'logo', issue: `is not a readable ${type === 'image/png' ? 'PNG' : 'JPEG'} image` }]);
  }
  await getTenantRow(deps, actor);
  await upsertBranding(deps, actor.tenantId, { logo: bytes, logoType: type });
  return getMyTenant(deps, actor);
}

export async function getLogo(deps: AuthDeps, actor: Actor): Promise<{ bytes: Buffer; type: string }> {
  const row = (
    await deps.db.select({ logo: tenantBranding.logo, type: tenantBranding.logoType }).from(tenantBranding).where(eq(tenantBranding.tenantId, actor.tenantId))
  )[0];
  if (!row?.logo || !row.type) throw notFound('Logo');
  return { bytes: row.logo, type: row.type };
}

export async function deleteLogo(deps: AuthDeps, actor: Actor) {
  await upsertBranding(deps, actor.tenantId, { logo: null, logoType: null });
  return getMyTenant(deps, actor);
}

/**
 * The operator's `set-plan`: false when there is no such tenant. On PostgreSQL every running instance drops its
 * cached tenant and credentials at once; a SQLite service (another process) sees it within its caches' 10 s.
 */
export async function setTenantPlan(db: Db, tenantId: string, plan: Plan, rateLimitPerMinute: number | null, now: Date): Promise<boolean> {
  const updated = await db
    .update(tenants)
    .set({ plan, rateLimitPerMinute, updatedAt: now.toISOString() })
    .where(eq(tenants.id, tenantId))
    .returning({ id: tenants.id });
  if (updated.length === 1) await announceIdentityChange(db, tenantId);
  return updated.length === 1;
}
