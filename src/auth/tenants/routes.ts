import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, formBody, jsonBody, jsonResponse } from '../../lib/schemas.ts';
import type { AuthDeps } from '../deps.ts';
import { MAX_LOGO_DECODED_BYTES } from './image-check.ts';
import { LogoUploadSchema, MAX_LOGO_BYTES, TenantPatchSchema, TenantSchema } from './schemas.ts';
import { deleteLogo, getLogo, getMyTenant, updateMyTenant, uploadLogo } from './service.ts';
import { LogoUploadExamples, TenantPatchExamples } from './examples.ts';

const errors = errorResponses('auth');

const tags = ['Tenant'];

export function mountTenantRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/tenants/me',
      operationId: 'getTenant',
      tags,
      summary: 'Profile of the tenant that owns the credential',
      responses: { 200: jsonResponse(TenantSchema, 'The tenant'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await getMyTenant(deps, actorOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/tenants/me',
      operationId: 'updateTenant',
      tags,
      summary: 'Update legal name, fiscal regime, postal code, PDF colour or email Reply-To (ADMIN)',
      description:
        "The RFC cannot change. The régimen must apply to the RFC's persona type. `reply_to` is the Reply-To of every CFDI email sent from then on " +
        '(an address as email_to takes: trimmed, lower-cased; else 422 naming `reply_to`).',
      middleware: [requireRole('ADMIN')] as const,
      request: { body: jsonBody(TenantPatchSchema, TenantPatchExamples) },
      responses: {
        200: jsonResponse(TenantSchema, 'Updated'),
        ...errors.unauthenticated,
        ...errors.admin,
        ...errors.invalidInput,
      },
    }),
    async (c) => c.json(await updateMyTenant(deps, actorOf(c), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/api/v1/tenants/me/logo',
      operationId: 'uploadTenantLogo',
      tags,
      summary: 'Upload the logo printed on invoice PDFs (ADMIN)',
      description: `multipart field \`logo\`: PNG or JPEG, at most ${MAX_LOGO_BYTES / 1024} KiB (larger → 413), 2048 × 2048 pixels and ${MAX_LOGO_DECODED_BYTES / 1024 / 1024} MiB decoded (width × height × channels × bytes per channel: a 16-bit RGBA PNG of 2048 × 2048 is 32 MiB, refused; else 422 naming \`logo\`). Replaces the previous logo. Shown top left on every page, scaled to fit 110 × 52 pt.`,
      middleware: [requireRole('ADMIN')] as const,
      request: { body: formBody(LogoUploadSchema, LogoUploadExamples) },
      responses: {
        200: jsonResponse(TenantSchema, 'Stored'),
        400: errorResponse('Malformed multipart body'),
        ...errors.unauthenticated,
        ...errors.admin,
        413: errorResponse('The file is too large'),
        422: errorResponse('Not a whole PNG or JPEG image, or larger than 2048 × 2048 pixels or 16 MiB decoded'),
      },
    }),
    async (c) => c.json(await uploadLogo(deps, actorOf(c), c.req.valid('form').logo), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/tenants/me/logo',
      operationId: 'getTenantLogo',
      tags,
      summary: 'The stored logo',
      responses: {
        200: {
          description: 'The image as uploaded',
          content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) }, 'image/jpeg': { schema: z.string().openapi({ format: 'binary' }) } },
        },
        ...errors.unauthenticated,
        404: errorResponse('No logo'),
      },
    }),
    async (c) => {
      const logo = await getLogo(deps, actorOf(c));
      return c.body(new Uint8Array(logo.bytes), 200, { 'Content-Type': logo.type });
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/tenants/me/logo',
      operationId: 'deleteTenantLogo',
      tags,
      summary: 'Remove the logo (ADMIN)',
      middleware: [requireRole('ADMIN')] as const,
      responses: { 200: jsonResponse(TenantSchema, 'Removed'), ...errors.unauthenticated, ...errors.admin },
    }),
    async (c) => c.json(await deleteLogo(deps, actorOf(c)), 200),
  );
}
