import type { ConsoleContext, ConsoleKit, PageStatus, Session } from './kit.ts';
import { h, type Markup, messagePage, type Viewer } from './page.ts';

/**
 * What the administration screens share: their forms (each a POST with the session's token), a page of the API's
 * list, and a refused change shown at the top of the screen it came from. The API decides every permission; the
 * buttons shown follow its roles only so that a VIEWER is not offered what it would refuse.
 */

/** ADMIN: what only an administrator may change (webhooks, CSDs, API keys, users). */
export const isAdmin = (v: Viewer) => v.role === 'ADMIN';
/** ADMIN or OPERATOR: series and clients. */
export const canWrite = (v: Viewer) => v.role === 'ADMIN' || v.role === 'OPERATOR';

/** A POST form of the console with this session's token; `confirm` asks before a change that cannot be undone. */
export function postForm(
  v: Viewer,
  action: string,
  content: Markup,
  o: { id?: string; confirm?: string; multipart?: boolean; card?: boolean; label?: string } = {},
): Markup {
  return h`<form method="post" action="${action}"${o.id ? h` id="${o.id}"` : ''}${o.card ? h` class="card"` : h` class="inline"`}${o.confirm ? h` data-confirm="${o.confirm}"` : ''}${o.multipart ? h` enctype="multipart/form-data"` : ''}${o.label ? h` aria-label="${o.label}"` : ''}><input type="hidden" name="csrf" value="${v.csrf}">${content}</form>`;
}

/** A labelled input; `prefix` keeps ids unique when one page has several forms. */
export function field(prefix: string, name: string, label: string, value: string | null | undefined, attrs: Markup = h``): Markup {
  return h`<div><label for="${prefix}-${name}">${label}</label><input id="${prefix}-${name}" name="${name}" value="${value ?? ''}" ${attrs}></div>`;
}

/** A labelled select of `options` (value → text). */
export function choice(prefix: string, name: string, label: string, options: [string, string][], chosen?: string): Markup {
  return h`<div><label for="${prefix}-${name}">${label}</label><select id="${prefix}-${name}" name="${name}">${options.map(
    ([value, text]) => h`<option value="${value}"${value === chosen ? h` selected` : ''}>${text}</option>`,
  )}</select></div>`;
}

/** A button that posts one action (delete, revoke, activate…) for a row. */
export function actionButton(v: Viewer, action: string, text: string, o: { id: string; confirm?: string; danger?: boolean }): Markup {
  return postForm(v, action, h`<button type="submit" id="${o.id}"${o.danger ? h` class="danger"` : h` class="secondary"`}>${text}</button>`, {
    confirm: o.confirm,
  });
}

/** The refusal at the top of a screen (the API's message and each field: issue). */
export const errorBox = (error: string | undefined) => (error ? h`<p class="error" role="alert" id="form-error">${error}</p>` : '');

/** A page of the API's list, or the page that says why it was refused. */
export async function apiList<T>(
  kit: ConsoleKit,
  c: ConsoleContext,
  session: Session,
  viewer: Viewer,
  path: string,
): Promise<{ data: T[]; next: string | null } | Response> {
  const res = await kit.api(c, session, 'GET', path);
  if (res.status !== 200) return await readRefused(kit, c, viewer, res);
  const body = (await res.json()) as { data: T[]; pagination?: { next_cursor: string | null } };
  return { data: body.data, next: body.pagination?.next_cursor ?? null };
}

/** A read the API refused: a role that may not see this (403, said as such), not found (404), or its refusal. */
export async function readRefused(kit: ConsoleKit, c: ConsoleContext, viewer: Viewer, res: Response): Promise<Response> {
  if (res.status === 403) return kit.htmlPage(c, messagePage(viewer.lang, viewer.t.forbidden, viewer.t.forbiddenRead), 403);
  return (await kit.refused(c, viewer, res.status === 422 ? new Response(res.body, { status: 400 }) : res))!;
}

/** The next and first page links of a list whose query is `params` (the cursor added). */
export function pager(v: Viewer, path: string, params: URLSearchParams, next: string | null, paged: boolean): Markup {
  const withCursor = new URLSearchParams(params);
  if (next) withCursor.set('cursor', next);
  return h`<div class="pager">${paged ? h`<a href="${path}${params.size ? `?${params}` : ''}" id="first-page">${v.t.first}</a>` : ''}${next ? h`<a href="${`${path}?${withCursor}`}" id="next-page" rel="next">${v.t.next}</a>` : ''}</div>`;
}

/** The cursor the browser asked for, as far as the API takes one. */
export const cursorOf = (c: ConsoleContext) => c.req.query('cursor')?.slice(0, 512);

/**
 * A change's answer: undefined when the API took it (2xx); a refusal of the input (400, 409, 413, 422, 429) as the
 * text and status to show on the screen again; otherwise (403, 404, 5xx) the page `kit.refused` makes.
 */
export async function outcome(
  kit: ConsoleKit,
  c: ConsoleContext,
  viewer: Viewer,
  res: Response,
): Promise<undefined | { error: string; status: PageStatus } | Response> {
  if (res.status >= 200 && res.status < 300) return undefined;
  if ([400, 409, 413, 422, 429].includes(res.status)) {
    if (res.status === 429) c.header('Retry-After', res.headers.get('retry-after') ?? '60');
    return { error: await kit.refusal(res, viewer.t), status: (res.status === 422 ? 400 : res.status) as PageStatus };
  }
  return (await kit.refused(c, viewer, res))!;
}

/** A form's text field as the API takes it: trimmed, absent when empty. */
export const given = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** An id from the path, for the API's path. */
export const idOf = (c: ConsoleContext, name = 'id') => encodeURIComponent(c.req.param(name) ?? '');

/* Forms that show the API's issue beside each field (the received inbox, receipts, profile, stats). */

type ApiErrorBody = { error?: { message?: string; details?: { field: string; issue: string }[] } };

/** The API's refusal as its message and an issue per field, for forms that show each beside its field. */
export async function fieldErrors(res: Response): Promise<{ message: string; fields: Record<string, string> }> {
  const body = (await res.json().catch(() => ({}))) as ApiErrorBody;
  const fields: Record<string, string> = {};
  for (const d of body.error?.details ?? []) fields[d.field] = fields[d.field] ? `${fields[d.field]}; ${d.issue}` : d.issue;
  return { message: body.error?.message ?? '', fields };
}

/** The page status for an API refusal of a form: its own when the console has one, else 400 for invalid input. */
export const formStatus = (status: number): PageStatus =>
  status === 403 || status === 404 || status === 409 || status === 413 || status === 429 ? status : status === 400 || status === 422 ? 400 : 502;

/** A labelled input (its id from its name); `error` (the API's issue for this field) is said beside it and ties to it. */
export function fieldWithIssue(name: string, label: string, value: string | undefined, attrs: Markup = h``, error?: string): Markup {
  return h`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${value ?? ''}" ${attrs}${
    error ? h` aria-invalid="true" aria-describedby="e-${name}"` : ''
  }>${error ? h`<span class="field-error" id="e-${name}">${error}</span>` : ''}</div>`;
}

/** A labelled select of keys with their names; the empty option first when `any` is given. */
export function keyChoice(
  name: string,
  label: string,
  options: readonly string[],
  names: Record<string, string>,
  chosen: string | undefined,
  any?: string,
  error?: string,
): Markup {
  return h`<div><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"${
    error ? h` aria-invalid="true" aria-describedby="e-${name}"` : ''
  }>${any !== undefined ? h`<option value="">${any}</option>` : ''}${options.map(
    (o) => h`<option value="${o}"${o === chosen ? h` selected` : ''}>${names[o] ?? o}</option>`,
  )}</select>${error ? h`<span class="field-error" id="e-${name}">${error}</span>` : ''}</div>`;
}

export const csrfField = (v: Viewer) => h`<input type="hidden" name="csrf" value="${v.csrf}">`;
