import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf, callerAddress, type BackendEnv } from '../../lib/backend.ts';
import { ServiceError } from '../../lib/service-error.ts';
import { errorResponse, errorResponses, jsonBody, jsonResponse } from '../../lib/schemas.ts';
import type { Logger } from '../../lib/logger.ts';
import type { AuthDeps } from '../deps.ts';
import { LoginResponseSchema, LoginSchema, MeSchema, RefreshSchema, RegisterResponseSchema, RegisterSchema, TokensSchema } from './schemas.ts';
import { createLoginThrottle } from './login-throttle.ts';
import { describeMe, login, logout, refreshSession, registerTenant } from './service.ts';
import { LoginExamples, RefreshExamples, RegisterExamples } from './examples.ts';

const errors = errorResponses('auth');

/** How many times the server's sign-up budget an address's first sign-up of the hour has (docs/decisions.md). */
const NEWCOMER_FACTOR = 10;

const tags = ['Auth'];
const invalid = errorResponse('Invalid input, malformed JSON included (the detail names its line and column)');

export function mountSessionRoutes(app: OpenAPIHono<BackendEnv>, deps: AuthDeps & { logger: Logger }) {
  const throttle = createLoginThrottle(deps.db);
  // Only valid sign-ups count: a mistyped RFC costs nothing. The address's budget first; the server's only when it allows.
  // An address's first sign-up of the hour spends a server budget ten times larger than its repeats do, so the few
  // addresses that spend their own budgets (20 of 5 make 100) never close sign-up to newcomers.
  const registrations = deps.rateLimits('registrations', 3600_000);
  const warnedWindow = { newcomers: 0, all: 0 };
  const spendRegistration = async (address: string) => {
    const { perAddress, total } = deps.registrationLimits;
    const [byAddress] = await registrations.hit([{ key: `address:${address}`, limit: perAddress }]);
    const first = byAddress!.remaining === perAddress - 1;
    const serverLimit = first ? total * NEWCOMER_FACTOR : total;
    const server = first ? 'newcomers' : 'all';
    const all = byAddress!.allowed ? (await registrations.hit([{ key: server, limit: serverLimit }]))[0] : undefined;
    if (all && !all.allowed && all.reset !== warnedWindow[server]) {
      warnedWindow[server] = all.reset; // once per window and budget (per instance): the operator learns that sign-ups are refused
      deps.logger.warn('registration cap reached', {
        limit: serverLimit,
        counts: first ? 'first sign-ups of an address' : 'further sign-ups of an address',
        until: new Date(all.reset * 1000).toISOString(),
      });
    }
    const refused = [
      { decision: byAddress, issue: `limit of ${perAddress} registrations per hour from this address reached` },
      { decision: all, issue: `this server's limit of ${serverLimit} registrations per hour reached` },
    ].find((r) => r.decision && !r.decision.allowed);
    if (!refused) return;
    const { retryAfter } = refused.decision!;
    throw new ServiceError(
      'too_many',
      'Too many registrations',
      [{ field: 'rate_limit', issue: `${refused.issue}; retry in ${retryAfter} seconds` }],
      retryAfter,
    );
  };

  app.use('/api/v1/auth/register', async (_c, next) => {
    if (deps.registration === 'closed') {
      throw new ServiceError('forbidden', 'Registration is closed on this server', [
        { field: 'registration', issue: 'is closed (REGISTRATION=closed): the operator creates tenants with the create-tenant command' },
      ]);
    }
    await next();
  });
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/register',
      operationId: 'registerTenant',
      tags,
      summary: 'Register a tenant (issuer) and its first ADMIN user',
      description:
        'The RFC decides the persona type (12 characters moral, 13 física); the régimen must apply to it (c_RegimenFiscal) and the postal code must be in c_CodigoPostal. ' +
        'Any email may be used: emails are unique within a tenant only, so the answer never tells whether another tenant uses it. ' +
        'At most 5 sign-ups per hour from one client address (an IPv4 address, or an IPv6 /64: its addresses share one budget). On the server, ' +
        "an address's first sign-up of the hour spends a budget of 1,000 per hour and its further ones a budget of 100, so addresses spending " +
        'their own 5 never close sign-up to newcomers (429 with Retry-After, naming the budget); invalid requests do not count. ' +
        'The address that registers has signed in to the new user: it keeps a login budget of its own (see POST /auth/login).',
      security: [],
      request: { body: jsonBody(RegisterSchema, RegisterExamples) },
      responses: {
        201: jsonResponse(RegisterResponseSchema, 'Tenant and user created; tokens for the new user'),
        403: errorResponse('Registration is closed on this server (REGISTRATION=closed): an operator creates tenants'),
        422: invalid,
        429: errorResponse('Registration budget spent: this address (IPv6: its /64), or the whole server, registered too many tenants this hour'),
      },
    }),
    async (c) => {
      const address = callerAddress(c);
      await spendRegistration(address);
      const input = c.req.valid('json');
      const { body, subject } = await registerTenant(deps, input);
      // Whoever chose the password signed in from here: this address keeps a login budget of its own.
      await throttle.remember(input.email, address, deps.now());
      c.set('auditSubject', subject);
      return c.json(body, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/login',
      operationId: 'login',
      tags,
      summary: 'Log in with email and password',
      description:
        'Attempts are counted before the password is checked, by email and client address (an IPv4 address, or an IPv6 /64: its addresses count as one). ' +
        'An address that signed in to the email before (a right password, or the sign-up that created it) has a budget of its own: after 5 wrong ' +
        'passwords it waits (429 with Retry-After) 1 minute, then twice as long after each further one, up to 1 hour; a right password resets it. ' +
        "Every other address spends the email's one budget: 10 attempts from all of them together, then each attempt waits 1 minute, doubling up " +
        "to 1 hour, so more addresses buy no more guesses and never lock the owner out of the addresses it signed in from (the owner's right " +
        'password from a new address is given back). An unknown email gets the same answers, the same waits and the same cost as a known one. ' +
        'An email that is a user of several tenants logs in with `tenant_id`: without it, the answer is that of a wrong password, which says so.',
      security: [],
      request: { body: jsonBody(LoginSchema, LoginExamples) },
      responses: {
        200: jsonResponse(LoginResponseSchema, 'Tokens'),
        401: errorResponse('Wrong email or password'),
        422: invalid,
        429: errorResponse('Too many attempts for this email from this address, or from addresses it never signed in from: wait Retry-After seconds'),
      },
    }),
    async (c) => {
      const { body, subject } = await login(deps, throttle, c.req.valid('json'), callerAddress(c));
      c.set('auditSubject', subject);
      return c.json(body, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/auth/refresh',
      operationId: 'refreshSession',
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
      path: '/api/v1/auth/logout',
      operationId: 'logout',
      tags,
      summary: 'Revoke a refresh token and every token rotated from the same login',
      description: 'Always 204, also for an unknown token. Access tokens stay valid until they expire.',
      security: [],
      request: { body: jsonBody(RefreshSchema, RefreshExamples) },
      responses: { 204: { description: 'Revoked' }, 422: invalid },
    }),
    async (c) => {
      const subject = await logout(deps, c.req.valid('json').refresh_token);
      if (subject) c.set('auditSubject', subject);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/auth/me',
      operationId: 'getMe',
      tags,
      summary: 'The caller: user or API key, tenant and environment',
      responses: { 200: jsonResponse(MeSchema, 'The caller'), ...errors.unauthenticated },
    }),
    async (c) => c.json(await describeMe(deps, actorOf(c)), 200),
  );
}
