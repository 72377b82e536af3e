import type { Context, Hono } from 'hono';
import type { Lang, Messages } from './messages.ts';
import type { Viewer } from './page.ts';

/** What the console's router gets from the gateway: the Bun server (the peer's address) and the request id. */
export type ConsoleEnv = { Bindings: { server: BunServer | undefined; requestId: string }; Variables: { requestId: string } };
export type BunServer = { requestIP(request: Request): unknown };
export type ConsoleRouter = Hono<ConsoleEnv>;
export type ConsoleContext = Context<ConsoleEnv>;

/** A signed-in browser: its refresh token (the cookie), the access token it stands for, its form token, its environment. */
export interface Session {
  token: string;
  access: string;
  csrf: string;
  environment: 'test' | 'live';
}

export type PageStatus = 200 | 400 | 401 | 403 | 404 | 409 | 413 | 429 | 502;
export type Handler = (c: ConsoleContext, session: Session, viewer: Viewer) => Promise<Response>;
type ChangeHandler = (c: ConsoleContext, session: Session, viewer: Viewer, form: Record<string, string>) => Promise<Response>;

/**
 * What every screen of the console is made with. A screen module is `mount(web, kit)`: its pages are `signedIn`,
 * its changes `signedIn(change(...))`, and what it shows or changes it asks of the API with `api`, as this user.
 */
export interface ConsoleKit {
  /** A request to the API as this user (through the gateway: its roles, budgets, audit log and isolation apply). */
  api(c: ConsoleContext, session: Session | undefined, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The same with a body the console does not make JSON of (a multipart upload, a file): the content type given. */
  apiRaw(c: ConsoleContext, session: Session, method: string, path: string, body: BodyInit, contentType: string): Promise<Response>;
  /** A page or action of a signed-in user: without a live session, back to the sign-in page. */
  signedIn(handler: Handler): (c: ConsoleContext) => Promise<Response>;
  /** A change: its form's token must be this session's, else 403 and nothing is done. */
  change(handler: ChangeHandler): Handler;
  htmlPage(c: ConsoleContext, body: string, status?: PageStatus): Response;
  /** 303 to a console page. */
  redirect(c: ConsoleContext, to: string): Response;
  /** What the API answered when it refused, as one line for the page (message, then each field and its issue). */
  refusal(res: Response, t: Messages): Promise<string>;
  /** The API's answer to a change as the page it deserves: 404, 403 or the refusal; `undefined` when it succeeded (2xx). */
  refused(c: ConsoleContext, viewer: Viewer, res: Response): Promise<Response | undefined>;
  notFound(c: ConsoleContext, viewer: Viewer): Response;
  /** The API's bytes (a download), as they are. */
  passThrough(res: Response): Response;
  /** The browser's language. */
  langOf(c: ConsoleContext): Lang;
}

export type ConsoleScreen = (web: ConsoleRouter, kit: ConsoleKit) => void;
