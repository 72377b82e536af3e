import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, requireUserSession, type BackendEnv } from '../../lib/backend.ts';
import { errorResponse, errorResponses, idParam, jsonBody, jsonResponse, paginated, PaginationQuery } from '../../lib/schemas.ts';
import type { AuthDeps } from '../deps.ts';
import { ApiKeyCreatedSchema, ApiKeyCreateSchema, ApiKeySchema, RevokedSchema } from './schemas.ts';
import { createApiKey, listApiKeys, resumeCreateApiKey, revokeApiKey } from './service.ts';
import { ApiKeyCreateExamples } from './examples.ts';

const errors = errorResponses('auth');

const tags = ['API keys'];
const security = [{ bearerJwt: [] }];
const common = {
  ...errors.unauthenticated,
  403: errorResponse('Not ADMIN, or called with an API key instead of a user session'),
};

export function mountApiKeyRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/api-keys',
      operationId: 'createApiKey',
      tags,
      security,
      summary: 'Create an API key (ADMIN, user session)',
      description:
        'The `key` is returned only in this response and cannot be retrieved again. A retry with the same `Idempotency-Key` by the same user ' +
        'gets this answer back (it is stored sealed); anyone else sending that key makes their own request. If the service stopped before ' +
        'answering, that retry gets the key it created with a new secret (the first was never shown, and stops working); while the first ' +
        'request is still running, 409 `idempotency_key_in_use`. ' +
        'At most 20 active keys per tenant and environment (409).',
      middleware: [requireUserSession, requireRole('ADMIN')] as const,
      request: { body: jsonBody(ApiKeyCreateSchema, ApiKeyCreateExamples) },
      responses: {
        201: jsonResponse(ApiKeyCreatedSchema, 'Created; the secret is shown once'),
        409: errorResponse('The tenant already has 20 active keys in this environment: revoke one first'),
        ...errors.invalidInput,
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed
        ? await resumeCreateApiKey(deps, actorOf(c), claim.resumed, claim)
        : await createApiKey(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/api-keys',
      operationId: 'listApiKeys',
      tags,
      security,
      summary: "List the tenant's active API keys (never their secrets)",
      middleware: [requireUserSession] as const,
      request: { query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(ApiKeySchema), 'A page of keys'), ...errors.invalidQuery, ...common },
    }),
    async (c) => c.json(await listApiKeys(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/api-keys/{id}',
      operationId: 'revokeApiKey',
      tags,
      security,
      summary: 'Revoke and delete an API key (ADMIN); effective on the next request',
      middleware: [requireUserSession, requireRole('ADMIN')] as const,
      request: { params: idParam('ak') },
      responses: { 200: jsonResponse(RevokedSchema, 'Revoked'), 404: errorResponse('No such key in this tenant'), ...common },
    }),
    async (c) => c.json(await revokeApiKey(deps, actorOf(c), c.req.valid('param').id), 200),
  );
}
