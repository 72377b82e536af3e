import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { fieldPath } from '../cfdi/input.ts';
import { locateJsonError } from './json-error.ts';
import { ServiceError, type ErrorDetail, type ErrorKind } from './service-error.ts';
import { storageFailure, writeConflict } from '../db/engine.ts';

/** What the request log says about an error answer: its code and the first detail's field and rule. */
export interface ErrorSummary {
  code: string;
  field?: string;
  rule?: string;
}

interface ErrorEnvelope {
  error: { code: string; message: string; details: ErrorDetail[] };
  path: string;
  timestamp: string;
  request_id: string;
}

/** Invalid input is 422 on the authentication routes and 400 on the invoice routes, as the spec says; the gateway's own: 400. */
export const INVALID_INPUT_STATUS = { auth: 422, invoices: 400, gateway: 400 } as const;

/** Who answers an error: each backend and the gateway, which differ only in the status of invalid input. */
export type BackendKind = keyof typeof INVALID_INPUT_STATUS;

/** The status each kind of service error is answered with, for every backend. */
export function statusOf(kind: ErrorKind, backend: BackendKind): ContentfulStatusCode {
  switch (kind) {
    case 'invalid_input':
      return INVALID_INPUT_STATUS[backend];
    case 'invalid_header':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'too_large':
      return 413;
    case 'rejected':
      return 422;
    case 'too_many':
      return 429;
    case 'unavailable':
      return 503;
  }
}

function respondServiceError(c: Context, err: ServiceError, backend: BackendKind): Response {
  const headers: Record<string, string> = {};
  if (err.kind === 'unauthenticated') headers['WWW-Authenticate'] = 'Bearer';
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  return respondError(c, statusOf(err.kind, backend), err.message, err.details, headers, err.code);
}

function errorEnvelope(c: Context, status: number, message: string, details: ErrorDetail[] = [], code?: string): ErrorEnvelope {
  return {
    error: { code: code ?? `HTTP_${status}`, message, details },
    path: c.req.path,
    timestamp: new Date().toISOString(),
    request_id: c.get('requestId') ?? c.req.header('x-request-id') ?? '',
  };
}

export function respondError(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  details: ErrorDetail[] = [],
  headers: Record<string, string> = {},
  code?: string,
): Response {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  const envelope = errorEnvelope(c, status, message, details, code);
  // For the request log line: recorded here, so nobody parses the body again.
  const summary: ErrorSummary = { code: envelope.error.code, field: details[0]?.field, rule: details[0]?.rule };
  c.set('error', summary);
  return c.json(envelope, status);
}

export function zodDetails(error: ZodError, prefix?: string): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = fieldPath(issue.path);
    let field = [prefix, path].filter(Boolean).join('.') || prefix || 'body';
    if (issue.code === 'unrecognized_keys') field = [field === 'body' ? '' : field, issue.keys.join(',')].filter(Boolean).join('.');
    // A refinement may name the SAT rule it enforces (params.rule), like the engine's own checks do.
    const rule = issue.code === 'custom' ? (issue.params as { rule?: unknown } | undefined)?.rule : undefined;
    return typeof rule === 'string' ? { field, issue: issue.message, rule } : { field, issue: issue.message };
  });
}

/** Who answers the error, and what it knows about its routes' bodies, so Hono's body errors can say what to send. */
export interface ErrorContext {
  backend: BackendKind;
  /** The body the matched route takes: `application/json`, or `multipart/form-data with fields cer, key, password`. */
  accepts?(c: Context): string | undefined;
  /** Where a failure the client cannot fix (a bug, the storage) is told to the operator. */
  log?(e: Error, c: Context): void;
}

/** How long a client is told to wait when the storage cannot take a write (the operator has to free space). */
const STORAGE_RETRY_AFTER_SECONDS = '60';

/**
 * An error's stack and the chain of its causes with their codes: Drizzle's "Failed query" says which statement,
 * only its cause says why (a serialization failure, a lost connection, a constraint).
 */
export function errorWithCauses(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e !== undefined && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const text = e instanceof Error ? (depth === 0 ? (e.stack ?? e.message) : e.message) : String(e);
    parts.push(`${depth === 0 ? '' : 'caused by: '}${typeof code === 'string' ? `[${code}] ` : ''}${text}`);
  }
  return parts.join('\n');
}

/** The 503 each kind of storage failure answers: message, detail field and issue, Retry-After (a database restart takes seconds). */
const STORAGE_ANSWERS = {
  full: ['Storage is full; retry later', 'storage', 'the service has no space left to record this request', STORAGE_RETRY_AFTER_SECONDS],
  failing: ['Storage is failing; retry later', 'storage', 'the service could not write this request', STORAGE_RETRY_AFTER_SECONDS],
  unreachable: ['The database is unreachable; retry later', 'database', 'the service cannot reach its database now (a restart or a failover)', '5'],
} as const;

/** onError for every app: a ServiceError, Hono's HTTPException (malformed JSON, 415, 413), a storage failure (503), or a bug (500, no stack). */
export function handleError(err: Error, c: Context, context: ErrorContext): Response | Promise<Response> {
  if (err instanceof ServiceError) return respondServiceError(c, err, context.backend);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    if (status === 415) {
      const send = `send Content-Type: ${context.accepts?.(c) ?? 'application/json'}`;
      const sent = c.req.header('content-type');
      return respondError(c, 415, `Unsupported media type: ${send}`, [
        { field: 'content-type', issue: `${sent ? `${sent} is not accepted` : 'is missing'}; ${send}` },
      ]);
    }
    // Hono's JSON validator read the body as text (cached) before JSON.parse refused it.
    if (status === 400 && err.message.startsWith('Malformed JSON')) return malformedJson(c, statusOf('invalid_input', context.backend));
    const message = err.message || defaultMessage(status);
    return respondError(c, status, message, [{ field: 'body', issue: message }]);
  }
  const storage = storageFailure(err);
  if (storage) {
    context.log?.(err, c); // the operator has to act: logged with the engine's code, never shown to the client
    const [message, field, issue, retryAfter] = STORAGE_ANSWERS[storage.kind];
    return respondError(c, 503, message, [{ field, issue }], { 'Retry-After': retryAfter });
  }
  if (writeConflict(err)) {
    context.log?.(err, c);
    return respondError(
      c,
      503,
      'Too many concurrent writes; retry',
      [{ field: 'database', issue: "other requests were writing the same rows (a series' folios) for too long: nothing was written, retry in a second" }],
      { 'Retry-After': '1' },
    );
  }
  context.log?.(err, c);
  return respondError(c, 500, 'Internal server error');
}

async function malformedJson(c: Context, status: ContentfulStatusCode): Promise<Response> {
  const text: string | undefined = await Promise.resolve(c.req.bodyCache.text).catch(() => undefined);
  const at = text === undefined ? undefined : locateJsonError(text);
  const issue = at ? `malformed JSON at line ${at.line}, column ${at.column} (offset ${at.offset}): ${at.problem}` : 'malformed JSON';
  return respondError(c, status, 'Malformed JSON in request body', [{ field: 'body', issue }]);
}

function defaultMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Bad request';
    case 413:
      return 'Request body too large';
    default:
      return `HTTP ${status}`;
  }
}
