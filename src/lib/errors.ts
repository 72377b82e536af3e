import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { fieldPath, type FieldProblem } from '../cfdi/input.ts';
import { locateJsonError } from './json-error.ts';

/** One detail of an error answer: the engine's problem shape (field, issue, SAT rule code when one applies). */
export type ErrorDetail = FieldProblem;

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

/** The one error type thrown everywhere; `onError` turns it into the envelope. */
export class ApiError extends HTTPException {
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    message: string,
    details: ErrorDetail[] = [],
    headers: Record<string, string> = {},
  ) {
    super(status, { message });
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (message: string, details: ErrorDetail[] = []) => new ApiError(400, message, details);
export const unauthorized = (message = 'Missing or invalid credential') =>
  new ApiError(401, message, [{ field: 'authorization', issue: message }], { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (message: string) => new ApiError(403, message, [{ field: 'role', issue: message }]);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string, details: ErrorDetail[] = []) => new ApiError(409, message, details);

function errorEnvelope(
  c: Context,
  status: number,
  message: string,
  details: ErrorDetail[] = [],
): ErrorEnvelope {
  return {
    error: { code: `HTTP_${status}`, message, details },
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
): Response {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  const envelope = errorEnvelope(c, status, message, details);
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

/** What a backend knows about its routes' bodies, so Hono's body errors can say what to send. */
export interface BodyErrorContext {
  /** The body the matched route takes: `application/json`, or `multipart/form-data with fields cer, key, password`. */
  accepts(c: Context): string | undefined;
  /** Malformed JSON is invalid input: 422 on the authentication routes, 400 on the invoice routes. */
  invalidInputStatus: 400 | 422;
}

/**
 * SQLite's code for a write the storage could not take: SQLITE_FULL (no space) or SQLITE_IOERR_* (the disk failed),
 * found on the error or its cause (Drizzle wraps the driver's error).
 */
function storageErrorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR'))) return code;
  }
  return undefined;
}

/** How long a client is told to wait when the storage cannot take a write (the operator has to free space). */
const STORAGE_RETRY_AFTER_SECONDS = '60';

/** onError for every app: our ApiError, Hono's HTTPException (malformed JSON, 415, 413), a storage failure (503), or a bug (500, no stack). */
export function handleError(err: Error, c: Context, log?: (e: Error) => void, body?: BodyErrorContext): Response | Promise<Response> {
  if (err instanceof ApiError) {
    return respondError(c, err.status as ContentfulStatusCode, err.message, err.details, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    if (status === 415) {
      const send = `send Content-Type: ${body?.accepts(c) ?? 'application/json'}`;
      const sent = c.req.header('content-type');
      return respondError(c, 415, `Unsupported media type: ${send}`, [{ field: 'content-type', issue: `${sent ? `${sent} is not accepted` : 'is missing'}; ${send}` }]);
    }
    // Hono's JSON validator read the body as text (cached) before JSON.parse refused it.
    if (status === 400 && err.message.startsWith('Malformed JSON')) return malformedJson(c, body?.invalidInputStatus ?? 400);
    const message = err.message || defaultMessage(status);
    return respondError(c, status, message, [{ field: 'body', issue: message }]);
  }
  const storage = storageErrorCode(err);
  if (storage) {
    log?.(err); // the operator has to act: logged with its SQLite code, never shown to the client
    const full = storage === 'SQLITE_FULL';
    const message = full ? 'Storage is full; retry later' : 'Storage is failing; retry later';
    return respondError(c, 503, message, [{ field: 'storage', issue: full ? 'the service has no space left to record this request' : 'the service could not write this request' }], { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS });
  }
  log?.(err);
  return respondError(c, 500, 'Internal server error');
}

async function malformedJson(c: Context, status: 400 | 422): Promise<Response> {
  const text: string | undefined = await Promise.resolve(c.req.bodyCache.text).catch(() => undefined);
  const at = text === undefined ? undefined : locateJsonError(text);
  const issue = at ? `malformed JSON at line ${at.line}, column ${at.column} (offset ${at.offset}): ${at.problem}` : 'malformed JSON';
  return respondError(c, status, 'Malformed JSON in request body', [{ field: 'body', issue }]);
}

function defaultMessage(status: number): string {
  switch (status) {
    case 400: return 'Bad request';
    case 413: return 'Request body too large';
    default: return `HTTP ${status}`;
  }
}
