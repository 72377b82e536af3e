import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, jsonBody, jsonResponse } from '../../lib/schemas.ts';
import type { AuthDeps } from '../deps.ts';
import { TenantPatchSchema, TenantSchema } from './schemas.ts';
import { getMyTenant, updateMyTenant } from './service.ts';

const tags = ['Tenant'];

export function mountTenantRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps) {
  app.openapi(
    createRoute({
      method: 'get', path: '/api/v1/tenants/me', operationId: 'getTenant', tags, summary: 'Profile of the tenant that owns the credential',
      responses: { 200: jsonResponse(TenantSchema, 'The tenant'), 401: errorResponse('Missing or invalid credential') },
    }),
    (c) => c.json(getMyTenant(deps, actorOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch', path: '/api/v1/tenants/me', operationId: 'updateTenant', tags,
      summary: 'Update legal name, fiscal regime or postal code (ADMIN)',
      description: 'The RFC cannot change. The régimen must apply to the RFC\'s persona type.',
      middleware: [requireRole('ADMIN')] as const,
      request: { body: jsonBody(TenantPatchSchema) },
      responses: {
        200: jsonResponse(TenantSchema, 'Updated'),
        401: errorResponse('Missing or invalid credential'),
        403: errorResponse('Role ADMIN required'),
        422: errorResponse('Invalid input'),
      },
    }),
    (c) => c.json(updateMyTenant(deps, actorOf(c), c.req.valid('json')), 200),
  );
}
