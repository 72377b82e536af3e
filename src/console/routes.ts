import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getConnInfo } from 'hono/bun';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { accessTokenOfSession } from '../auth/session/service.ts';
import type { AuthDeps } from '../auth/deps.ts';
import { reachedOverHttps, type TrustedProxies } from '../gateway/client-address.ts';
import type { GatewayEnv } from '../gateway/gateway.ts';
import { randomToken } from '../lib/crypto.ts';
import { routeGuard } from '../lib/backend.ts';
import { respondError } from '../lib/errors.ts';
import { mountApiKeyScreens } from './api-keys.ts';
import { mountAuditLogScreens } from './audit-log.ts';
import { mountClientScreens } from './clients.ts';
import { CSD_UPLOAD_LIMIT, mountCsdScreens } from './csds.ts';
import { mountInvoiceScreens } from './invoices.ts';
import { mountIssueScreens } from './issue.ts';
import { mountProfileScreens } from './profile.ts';
import { mountReceiptScreens } from './receipts.ts';
import { mountReceivedScreens } from './received.ts';
import { mountStatsScreens } from './stats.ts';
import { mountSeriesScreens } from './series.ts';
import { mountUserScreens } from './users.ts';
import { mountWebhookScreens } from './webhooks.ts';
import type { BunServer, ConsoleEnv, ConsoleKit, ConsoleScreen, Handler, PageStatus, Session } from './kit.ts';
import { languageOf, MESSAGES, type Lang, type Messages } from './messages.ts';
import { CONSOLE_ASSETS, CONSOLE_CSP, h, loginPage, messagePage, type Viewer } from './page.ts';

const serverOf = (c: Context): BunServer | undefined => {
  const env = c.env as { requestIP?: unknown } | undefined;
  return typeof env?.requestIP === 'function' ? (env as BunServer) : undefined;
};

export interface ConsoleDeps extends Pick<AuthDeps, 'db' | 'now' | 'accessTokens'> {
  /** The key the CSRF tokens are derived with (JWT_SECRET): a token is only made by this service. */
  secret: string;
  trustedProxies: TrustedProxies;
  /** The anonymous budget per client address: the sign-in page, its POST and the assets count against it. */
  anonymous: MiddlewareHandler<GatewayEnv>;
  /** The app itself: every console action is a request to the API through the gateway, as any client's. */
  fetch(request: Request, env: unknown): Response | Promise<Response>;
}

const SESSION = 'console_session';
const LOGIN = 'console_login';
const LANG = 'console_lang';
const ENV = 'console_env';

const PAGE_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

interface ApiError {
  error?: { message?: string; details?: { field: string; issue: string }[] };
}

/**
 * /console: the service's web console, server-rendered, in Spanish and English. Its session is a login of the API
 * (POST /auth/login), and each page is made from the API's own answers, asked with that user's credential through
 * the gateway (docs/decisions.md, "The console (issue 40)").
 */
export function mountConsole(app: OpenAPIHono<GatewayEnv>, deps: ConsoleDeps) {
  const web = new Hono<ConsoleEnv>();
  // The gateway's request id, for the error envelopes answered here.
  web.use('*', async (c, next) => {
    c.set('requestId', c.env.requestId);
    await next();
  });
  const mac = (purpose: string, value: string) => createHmac('sha256', deps.secret).update(`console-${purpose}:${value}`).digest('base64url');
  const sameToken = (a: string | undefined, b: string) => !!a && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

  const peer = (c: Context) => {
    try {
      return getConnInfo(c).remote.address;
    } catch {
      return undefined;
    }
  };
  const cookie = (c: Context) => ({
    httpOnly: true,
    secure: reachedOverHttps(c.req.url, peer(c), c.req.header('x-forwarded-proto'), deps.trustedProxies),
    sameSite: 'Strict' as const,
    path: '/console',
  });
  const langOf = (c: Context): Lang => languageOf(getCookie(c, LANG), c.req.header('accept-language'));
  const htmlPage = (c: Context, body: string, status: PageStatus = 200) => c.html(body, status, PAGE_HEADERS);
  const redirect = (c: Context, to: string) => {
    c.header('Cache-Control', 'no-store');
    return c.redirect(to, 303);
  };

  /** A request to the API as this user: through the gateway, with the client's address as the gateway sees it. */
  const send = async (
    c: Context<ConsoleEnv>,
    session: Session | undefined,
    method: string,
    path: string,
    body?: BodyInit,
    contentType?: string,
    extra: Record<string, string> = {},
  ) => {
    const headers = new Headers({ ...extra, accept: 'application/json', 'x-request-id': c.env.requestId });
    if (session) {
      headers.set('authorization', `Bearer ${session.access}`);
      headers.set('x-environment', session.environment);
    }
    const forwarded = c.req.header('x-forwarded-for');
    if (forwarded) headers.set('x-forwarded-for', forwarded);
    if (contentType) headers.set('content-type', contentType);
    const request = new Request(new URL(path, 'http://console.internal'), { method, headers, body });
    // The peer stays the browser's: per-address budgets and the login lockout count it, not this process.
    const server = c.env.server;
    return deps.fetch(request, server ? { requestIP: () => server.requestIP(c.req.raw) } : undefined);
  };
  const api = (c: Context<ConsoleEnv>, session: Session | undefined, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    body === undefined
      ? send(c, session, method, path, undefined, undefined, headers)
      : send(c, session, method, path, JSON.stringify(body), 'application/json', headers);

  const sessionOf = async (c: Context): Promise<Session | undefined> => {
    const token = getCookie(c, SESSION);
    if (!token || token.length > 200) return undefined;
    const access = await accessTokenOfSession(deps, token);
    if (!access) return undefined;
    return { token, access, csrf: mac('session', token), environment: getCookie(c, ENV) === 'live' ? 'live' : 'test' };
  };

  /** The signed-in user's view (tenant, role) from GET /auth/me; undefined when the API no longer takes the session. */
  const viewerOf = async (c: Context<ConsoleEnv>, session: Session): Promise<Viewer | undefined> => {
    const res = await api(c, session, 'GET', '/api/v1/auth/me');
    if (res.status !== 200) return undefined;
    const me = (await res.json()) as { tenant: { nombre: string }; user: { email: string; role: string } | null };
    const lang = langOf(c);
    return {
      lang,
      t: MESSAGES[lang],
      csrf: session.csrf,
      tenantName: me.tenant.nombre,
      email: me.user?.email ?? '',
      role: me.user?.role ?? '',
      environment: session.environment,
      here: c.req.path,
    };
  };

  /** A page or action of a signed-in user: without a live session, back to the sign-in page. */
  const signedIn =
    (handler: Handler) =>
    async (c: Context<ConsoleEnv>): Promise<Response> => {
      const session = await sessionOf(c);
      const viewer = session && (await viewerOf(c, session));
      if (!session || !viewer) {
        if (getCookie(c, SESSION)) deleteCookie(c, SESSION, { path: '/console' });
        return redirect(c, '/console/login');
      }
      return handler(c, session, viewer);
    };

  /** A change: its form's token must be this session's, else 403 and nothing is done. */
  const change =
    (handler: (c: Context<ConsoleEnv>, session: Session, viewer: Viewer, form: Record<string, string>) => Promise<Response>): Handler =>
    async (c, session, viewer) => {
      const form = await formOf(c);
      if (!sameToken(form.csrf, session.csrf)) return htmlPage(c, messagePage(viewer.lang, viewer.t.forbidden, viewer.t.badForm), 403);
      return handler(c, session, viewer, form);
    };

  /** What the API answered, when it refused, for the page. */
  const refusal = async (res: Response, t: Messages) => {
    const body = (await res.json().catch(() => ({}))) as ApiError;
    const detail = body.error?.details?.map((d) => `${d.field}: ${d.issue}`).join('; ');
    return [body.error?.message ?? t.failed, detail].filter(Boolean).join(' — ');
  };

  // A console form is a few fields: anything near this size is not one. The uploads take what the API takes (a
  // received CFDI or ZIP: the API's 1 MiB body; a logo: 256 KiB), with room for the form around the file.
  const limit = (maxSize: number) =>
    bodyLimit({ maxSize, onError: (c) => respondError(c, 413, 'Request body too large', [{ field: 'body', issue: `must be at most ${maxSize} bytes` }]) });
  const FORM = limit(16 * 1024);
  const UPLOADS = new Map([
    ['/console/received/upload', limit(1024 * 1024 + 16 * 1024)],
    ['/console/profile/logo', limit(256 * 1024 + 16 * 1024)],
    ['/console/csds', limit(CSD_UPLOAD_LIMIT)],
  ]);
  app.use('/console/*', (c, next) => ((c.req.method === 'POST' && UPLOADS.get(c.req.path)) || FORM)(c, next));
  app.use('/console/assets/*', deps.anonymous);
  app.use('/console/login', deps.anonymous);
  web.get('/console/assets/*', (c) => {
    const file = CONSOLE_ASSETS.get(c.req.path.slice('/console/assets/'.length));
    if (!file) return respondError(c, 404, 'Route not found', [{ field: 'path', issue: `no route ${c.req.path}` }]);
    return new Response(file.body, {
      headers: { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
    });
  });

  web.get('/console', (c) => redirect(c, '/console/invoices'));

  web.get('/console/language', (c) => {
    const to = c.req.query('to');
    if (to === 'es' || to === 'en') setCookie(c, LANG, to, { ...cookie(c), maxAge: 365 * 24 * 3600 });
    return redirect(c, '/console/invoices');
  });

  web.get('/console/login', async (c) => {
    if (await sessionOf(c)) return redirect(c, '/console/invoices');
    const lang = langOf(c);
    const notice = c.req.query('signed_out') !== undefined ? MESSAGES[lang].signedOut : undefined;
    return htmlPage(c, loginPage({ lang, t: MESSAGES[lang], csrf: loginToken(c), notice }));
  });

  /** The sign-in form's token: tied to a random cookie of this browser, so no other site can post a login in it. */
  const loginToken = (c: Context) => {
    let seed = getCookie(c, LOGIN);
    if (seed?.length !== 32) {
      seed = randomToken(24);
      setCookie(c, LOGIN, seed, cookie(c));
    }
    return mac('login', seed);
  };

  web.post('/console/login', async (c) => {
    const lang = langOf(c);
    const t = MESSAGES[lang];
    const form = await formOf(c);
    const seed = getCookie(c, LOGIN);
    if (!seed || !sameToken(form.csrf, mac('login', seed)))
      return htmlPage(c, messagePage(lang, t.forbidden, t.badForm, h`<p><a href="/console/login">${t.signIn}</a></p>`), 403);
    const credentials = { email: form.email ?? '', password: form.password ?? '', ...(form.tenant_id ? { tenant_id: form.tenant_id } : {}) };
    const res = await api(c, undefined, 'POST', '/api/v1/auth/login', credentials);
    if (res.status === 200) {
      const tokens = (await res.json()) as { refresh_token: string };
      // A new session id at each sign-in, never one the browser brought (no fixation).
      setCookie(c, SESSION, tokens.refresh_token, cookie(c));
      deleteCookie(c, LOGIN, { path: '/console' });
      return redirect(c, '/console/invoices');
    }
    const error =
      res.status === 429
        ? t.lockedOut(res.headers.get('retry-after') ?? '60')
        : res.status === 401 || res.status === 422
          ? t.wrongLogin
          : await refusal(res, t);
    if (res.status === 429) c.header('Retry-After', res.headers.get('retry-after') ?? '60');
    const status = res.status === 429 ? 429 : res.status === 401 || res.status === 422 ? 401 : 502;
    return htmlPage(c, loginPage({ lang, t, csrf: mac('login', seed), email: credentials.email, error }), status);
  });

  web.post(
    '/console/logout',
    signedIn(
      change(async (c, session) => {
        await api(c, undefined, 'POST', '/api/v1/auth/logout', { refresh_token: session.token });
        deleteCookie(c, SESSION, { path: '/console' });
        return redirect(c, '/console/login?signed_out');
      }),
    ),
  );

  web.post(
    '/console/environment',
    signedIn(
      change(async (c, _session, _viewer, form) => {
        const environment = form.environment === 'live' ? 'live' : 'test';
        setCookie(c, ENV, environment, cookie(c));
        const back = form.back ?? '';
        return redirect(c, /^\/console\/[A-Za-z0-9/_-]*$/.test(back) ? back : '/console/invoices');
      }),
    ),
  );

  const notFound = (c: Context, viewer: Viewer) =>
    htmlPage(c, messagePage(viewer.lang, viewer.t.notFound, viewer.t.notFoundText, h`<p><a href="/console/invoices">${viewer.t.back}</a></p>`), 404);

  const kit: ConsoleKit = {
    api,
    apiRaw: (c, session, method, path, body, contentType) => send(c, session, method, path, body, contentType),
    signedIn,
    change,
    htmlPage,
    redirect,
    refusal,
    async refused(c, viewer, res) {
      if (res.status >= 200 && res.status < 300) return undefined;
      if (res.status === 404) return notFound(c, viewer);
      if (res.status === 403) return htmlPage(c, messagePage(viewer.lang, viewer.t.forbidden, viewer.t.forbiddenText), 403);
      const status = res.status === 400 || res.status === 409 || res.status === 413 || res.status === 429 ? res.status : 502;
      return htmlPage(c, messagePage(viewer.lang, viewer.t.failed, await refusal(res, viewer.t)), status);
    },
    notFound,
    passThrough: (res) =>
      new Response(res.body, {
        headers: {
          'Content-Type': res.headers.get('content-type') ?? 'application/octet-stream',
          'Content-Disposition': res.headers.get('content-disposition') ?? 'attachment',
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
        },
      }),
    langOf,
  };
  // Each screen's pages and actions, in its own module.
  // The issue form before the invoices: its /console/invoices/new is not an invoice's id.
  const screens: ConsoleScreen[] = [
    mountIssueScreens,
    mountInvoiceScreens,
    mountReceivedScreens,
    mountReceiptScreens,
    mountProfileScreens,
    mountStatsScreens,
    mountWebhookScreens,
    mountAuditLogScreens,
    mountCsdScreens,
    mountApiKeyScreens,
    mountUserScreens,
    mountSeriesScreens,
    mountClientScreens,
  ];
  for (const mount of screens) mount(web, kit);

  // The console's pages are a web UI, not API operations: one router behind two catch-alls, out of the OpenAPI
  // document (as /docs/assets and /portal/assets); its own guard answers 405 and OPTIONS with Allow, as the gateway's.
  const guard = routeGuard(() => web.routes);
  web.notFound((c) => respondError(c, 404, 'Route not found', [{ field: 'path', issue: `no route ${c.req.path}` }]));
  web.onError((err) => {
    throw err; // to the gateway's error handler: one envelope, one log line
  });
  const dispatch = async (c: Context<GatewayEnv>) => {
    const refused = guard(c);
    if (refused) return refused;
    return await web.fetch(c.req.raw, { server: serverOf(c), requestId: c.get('requestId') });
  };
  app.all('/console', dispatch);
  app.all('/console/*', dispatch);
  /** The console's routes (method and path), for the tests that check each is covered. */
  return { routes: () => web.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, path: r.path })) };
}

/** A form's fields (urlencoded or multipart) as strings; anything else is left out. */
async function formOf(c: Context): Promise<Record<string, string>> {
  try {
    const body = await c.req.parseBody();
    return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}
