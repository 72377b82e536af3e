import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';

export interface ErrorDetail {
  field: string;
  issue: string;
  /** SAT rule code (e.g. CFDI40108) when one applies. */
  rule?: string;
}

export interface ErrorEnvelope {
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

export function errorEnvelope(
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
  return c.json(errorEnvelope(c, status, message, details), status);
}

/** Field path as users write it: `tenant.rfc`, `conceptos[0].cantidad`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
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

/** onError for every app: our ApiError, Hono's HTTPException (malformed JSON, 415, 413), or a bug (500, no stack). */
export function handleError(err: Error, c: Context, log?: (e: Error) => void): Response {
  if (err instanceof ApiError) {
    return respondError(c, err.status as ContentfulStatusCode, err.message, err.details, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const message = err.message || defaultMessage(status);
    return respondError(c, status, message, [{ field: status === 413 ? 'body' : 'body', issue: message }]);
  }
  log?.(err);
  return respondError(c, 500, 'Internal server error');
}

function defaultMessage(status: number): string {
  switch (status) {
    case 400: return 'Bad request';
    case 413: return 'Request body too large';
    case 415: return 'Unsupported media type: send Content-Type: application/json';
    default: return `HTTP ${status}`;
  }
}
