import type { FieldProblem } from '../cfdi/input.ts';

/** One detail of an error: the engine's problem shape (field, issue, SAT rule code when one applies). */
export type ErrorDetail = FieldProblem;

/**
 * What went wrong, by meaning; `statusOf` (src/lib/errors.ts) gives each its status per backend. Less obvious ones:
 * invalid_header (a header the service reads is malformed), too_large (an uploaded file), rejected (the PAC or SAT
 * refused it), unavailable (a dependency or capacity missing now; retry).
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

/** The one error services throw, with no transport in it: each backend answers it with a status, the CLI with a message. */
export class ServiceError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** When to try again, for too_many and some unavailable errors. */
    readonly retryAfterSeconds?: number,
    /** A documented code the error envelope carries instead of `HTTP_<status>` (e.g. `idempotency_key_in_use`). */
    readonly code?: string,
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
