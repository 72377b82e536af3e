import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, requireRole, requireUserSession, type BackendEnv } from '../../lib/backend.ts';
import { DeletedSchema, errorResponse, errorResponses, idParam, jsonBody, jsonResponse, paginated, PaginationQuery } from '../../lib/schemas.ts';
import type { AuthDeps } from '../deps.ts';
import { ChangePasswordSchema, UserCreateSchema, UserPatchSchema, UserSchema } from './schemas.ts';
import { changePassword, createUser, deleteUser, getUser, listUsers, updateUser } from './service.ts';
import { ChangePasswordExamples, UserCreateExamples, UserPatchExamples } from './examples.ts';

const errors = errorResponses('auth');

const tags = ['Users'];
/** These need a person's session: API keys are refused (requireUserSession). */
const security = [{ bearerJwt: [] }];
const common = {
  ...errors.unauthenticated,
  403: errorResponse('Not ADMIN, or an API key instead of a user session'),
  ...errors.invalidInput,
};
const Params = idParam('usr');

export function mountUserRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/users',
      operationId: 'createUser',
      tags,
      security,
      summary: 'Create a user in the tenant (ADMIN)',
      middleware: [requireUserSession, requireRole('ADMIN')] as const,
      request: { body: jsonBody(UserCreateSchema, UserCreateExamples) },
      responses: {
        201: jsonResponse(UserSchema, 'Created'),
        409: errorResponse('Email already used by a user of this tenant (other tenants are never consulted)'),
        ...common,
      },
    }),
    async (c) => {
      const claim = c.get('idempotency');
      const created = claim?.resumed ? await getUser(deps, actorOf(c), claim.resumed) : await createUser(deps, actorOf(c), c.req.valid('json'), claim?.bind);
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/users',
      operationId: 'listUsers',
      tags,
      summary: "List the tenant's users",
      request: { query: PaginationQuery },
      responses: { 200: jsonResponse(paginated(UserSchema), 'A page of users'), ...errors.unauthenticated, ...errors.invalidInput },
    }),
    async (c) => c.json(await listUsers(deps, actorOf(c), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/users/{id}',
      operationId: 'getUser',
      tags,
      summary: 'Get a user',
      request: { params: Params },
      responses: {
        200: jsonResponse(UserSchema, 'The user'),
        404: errorResponse('No such user in this tenant'),
        ...errors.unauthenticated,
        ...errors.invalidInput,
      },
    }),
    async (c) => c.json(await getUser(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/users/{id}',
      operationId: 'updateUser',
      tags,
      security,
      summary: "Update a user's email, name or role",
      middleware: [requireUserSession] as const,
      request: { params: Params, body: jsonBody(UserPatchSchema, UserPatchExamples) },
      responses: { 200: jsonResponse(UserSchema, 'Updated'), 404: errorResponse('No such user'), 409: errorResponse('Email taken, or last ADMIN'), ...common },
    }),
    async (c) => c.json(await updateUser(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/v1/users/{id}',
      operationId: 'deleteUser',
      tags,
      security,
      summary: 'Delete a user (ADMIN); their tokens stop working at once',
      middleware: [requireUserSession, requireRole('ADMIN')] as const,
      request: { params: Params },
      responses: {
        200: jsonResponse(DeletedSchema, 'Deleted'),
        404: errorResponse('No such user'),
        409: errorResponse('Yourself, or the last ADMIN'),
        ...common,
      },
    }),
    async (c) => c.json(await deleteUser(deps, actorOf(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/users/{id}/change-password',
      operationId: 'changePassword',
      tags,
      security,
      summary: "Change a password (yours with current_password, or any user's as ADMIN)",
      description: 'Ends every session of that user: refresh tokens are revoked and earlier access tokens stop working.',
      middleware: [requireUserSession] as const,
      request: { params: Params, body: jsonBody(ChangePasswordSchema, ChangePasswordExamples) },
      responses: { 204: { description: 'Changed' }, 404: errorResponse('No such user'), ...common },
    }),
    async (c) => {
      await changePassword(deps, actorOf(c), c.req.valid('param').id, c.req.valid('json'));
      return c.body(null, 204);
    },
  );
}
