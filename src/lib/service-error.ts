import type { FieldProblem } from '../cfdi/input.ts';

/** One detail of an error: the engine's problem shape (field, issue, SAT rule code when one applies). */
export type ErrorDetail = FieldProblem;

/**
 * What went wrong, by meaning. Each backend answers a kind with one status (`statusOf` in src/lib/errors.ts):
 * - invalid_input: the body, query or path breaks a rule (a SAT rule included);
 * - invalid_header: a request header the service reads (Idempotency-Key, X-Environment …) is malformed;
 * - unauthenticated: no usable credential; forbidden: the caller may not do this;
 * - not_found; conflict: the resource's state refuses it (duplicate, wrong status, changed meanwhile);
 * - too_large: an uploaded file is over its limit; too_many: a budget is spent, retry after `retryAfterSeconds`;
 * - rejected: the stamping provider or SAT refused it; unavailable: a dependency or capacity is missing now.
 */
export type ErrorKind =
  | 'invalid_input'
  | 'invalid_header'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'too_many'
  | 'rejected'
  | 'unavailable';

/** The one error services throw: no transport in it, so the engine-free layers and the CLI can use it as well. */
export class ServiceError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** When to try again, for too_many and some unavailable errors. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const invalidInput = (message: string, details: ErrorDetail[] = []) => new ServiceError('invalid_input', message, details);
export const unauthenticated = (message = 'Missing or invalid credential') =>
  new ServiceError('unauthenticated', message, [{ field: 'authorization', issue: message }]);
export const forbidden = (message: string) => new ServiceError('forbidden', message, [{ field: 'role', issue: message }]);
export const notFound = (what: string) => new ServiceError('not_found', `${what} not found`);
export const conflict = (message: string, details: ErrorDetail[] = []) => new ServiceError('conflict', message, details);
