import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, type BackendEnv } from '../../lib/backend.ts';
import { ApiError } from '../../lib/errors.ts';
import { errorResponse, jsonBody, jsonResponse } from '../../lib/schemas.ts';
import type { AuthDeps } from '../deps.ts';
import { LoginResponseSchema, LoginSchema, MeSchema, RefreshSchema, RegisterResponseSchema, RegisterSchema, TokensSchema } from './schemas.ts';
import { describeMe, login, logout, refreshSession, registerTenant } from './service.ts';
import { LoginExamples, RefreshExamples, RegisterExamples } from './examples.ts';

const tags = ['Auth'];
const invalid = errorResponse('Invalid input, malformed JSON included (the detail names its line and column)');

export function mountSessionRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps) {
  // Before the body is validated: on a closed server any sign-up is refused the same way.
  app.use('/api/v1/auth/register', async (_c, next) => {
    if (deps.registration === 'closed') {
      throw new ApiError(403, 'Registration is closed on this server', [
        { field: 'registration', issue: 'is closed (REGISTRATION=closed): the operator creates tenants with the create-tenant command' },
      ]);
    }
    await next();
  });
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/register', operationId: 'registerTenant',
      tags,
      summary: 'Register a tenant (issuer) and its first ADMIN user',
      description:
        'The RFC decides the persona type (12 characters moral, 13 física); the régimen must apply to it (c_RegimenFiscal) and the postal code must be in c_CodigoPostal.',
      security: [],
      request: { body: jsonBody(RegisterSchema, RegisterExamples) },
      responses: {
        201: jsonResponse(RegisterResponseSchema, 'Tenant and user created; tokens for the new user'),
        403: errorResponse('Registration is closed on this server (REGISTRATION=closed): an operator creates tenants'),
        409: errorResponse('Email already registered'),
        422: invalid,
      },
    }),
    async (c) => {
      const { body, subject } = await registerTenant(deps, c.req.valid('json'));
      c.set('auditSubject', subject);
      return c.json(body, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/login', operationId: 'login',
      tags,
      summary: 'Log in with email and password',
      description: `After 5 consecutive wrong passwords the account is locked for 15 minutes (429 with Retry-After).`,
      security: [],
      request: { body: jsonBody(LoginSchema, LoginExamples) },
      responses: {
        200: jsonResponse(LoginResponseSchema, 'Tokens'),
        401: errorResponse('Wrong email or password'),
        422: invalid,
        429: errorResponse('Account temporarily locked after repeated failures'),
      },
    }),
    async (c) => {
      const { body, subject } = await login(deps, c.req.valid('json'));
      c.set('auditSubject', subject);
      return c.json(body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/refresh', operationId: 'refreshSession',
      tags,
      summary: 'Exchange a refresh token for new tokens (rotation)',
      description: 'Each refresh token works once. Presenting one that was already used revokes every token of that login.',
      security: [],
      request: { body: jsonBody(RefreshSchema, RefreshExamples) },
      responses: {
        200: jsonResponse(TokensSchema, 'New access and refresh tokens'),
        401: errorResponse('Invalid, expired, revoked or reused refresh token'),
        422: invalid,
      },
    }),
    async (c) => {
      const { body, subject } = await refreshSession(deps, c.req.valid('json').refresh_token);
      c.set('auditSubject', subject);
      return c.json(body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/logout', operationId: 'logout',
      tags,
      summary: 'Revoke a refresh token and every token rotated from the same login',
      description: 'Always 204, also for an unknown token. Access tokens stay valid until they expire.',
      security: [],
      request: { body: jsonBody(RefreshSchema, RefreshExamples) },
      responses: { 204: { description: 'Revoked' }, 422: invalid },
    }),
    (c) => {
      const subject = logout(deps, c.req.valid('json').refresh_token);
      if (subject) c.set('auditSubject', subject);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/auth/me', operationId: 'getMe',
      tags,
      summary: 'The caller: user or API key, tenant and environment',
      responses: { 200: jsonResponse(MeSchema, 'The caller'), 401: errorResponse('Missing or invalid credential') },
    }),
    (c) => c.json(describeMe(deps, actorOf(c)), 200),
  );
}
