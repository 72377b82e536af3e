import { z } from '@hono/zod-openapi';
import { T_RFC } from '../cfdi/patterns.ts';
import { textIssue } from '../cfdi/text.ts';
import { INVALID_INPUT_STATUS, type BackendKind } from './errors.ts';

/** Free text we store and later print on fiscal documents: no control characters, no broken UTF-16. */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.isWellFormed(), 'contains invalid unicode (unpaired surrogate)')
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'contains control characters');

/** Text that is written into a CFDI (the issuer's name, a serie): the characters a CFDI request may hold (src/cfdi/text.ts). */
export const xmlText = (max: number) =>
  text(max).superRefine((s, ctx) => {
    const issue = textIssue(s);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  });

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid email address'))
  .openapi({ example: 'ana@example.com' });

export const Password = z
  .string()
  .min(10, 'must be at least 10 characters')
  .max(128, 'must be at most 128 characters')
  .refine((s) => s.isWellFormed(), 'contains invalid unicode (unpaired surrogate)')
  .openapi({ example: 'correct horse battery staple' });

/** SAT t_RFC, upper-cased before the check. Generic RFCs (público en general, extranjero) are not issuers. */
export const Rfc = z
  .string()
  .trim()
  .toUpperCase()
  .regex(T_RFC, { message: 'is not a valid RFC (12 characters persona moral, 13 persona física)', abort: true })
  .openapi({ example: 'EKU9003173C9' });

export const CodigoPostal = z
  .string()
  .regex(/^[0-9]{5}$/, { message: 'must be a 5-digit postal code', abort: true })
  .openapi({ example: '42501' });

const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({
        example: 'HTTP_422',
        description:
          '`HTTP_<status>`, or a specific code where the API documents one: `idempotency_key_in_use` (409, another request with this Idempotency-Key is still running)',
      }),
      message: z.string(),
      details: z.array(
        z.object({
          field: z.string(),
          issue: z.string(),
          rule: z.string().optional().openapi({ description: 'SAT rule code when one applies, e.g. CFDI40108' }),
        }),
      ),
    }),
    path: z.string(),
    timestamp: z.string().openapi({ format: 'date-time' }),
    request_id: z.string(),
  })
  .openapi('Error');

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorEnvelopeSchema } },
});

type ErrorResponse = ReturnType<typeof errorResponse>;
const byStatus = <S extends number>(status: S, description: string) => ({ [status]: errorResponse(description) }) as Record<S, ErrorResponse>;

/**
 * The error answers routes share, described once: a route spreads those it gives and declares by status only what
 * it says of its own. Invalid input takes its backend's status (INVALID_INPUT_STATUS, which the backend answers by).
 */
export function errorResponses<B extends BackendKind>(backend: B) {
  const invalid = INVALID_INPUT_STATUS[backend] as (typeof INVALID_INPUT_STATUS)[B];
  return {
    invalidInput: byStatus(invalid, 'Invalid input'),
    invalidQuery: byStatus(invalid, 'Invalid query'),
    unauthenticated: byStatus(401, 'Missing or invalid credential'),
    admin: byStatus(403, 'Role ADMIN required'),
    adminOrOperator: byStatus(403, 'Role ADMIN or OPERATOR required'),
    tooManyFromAddress: byStatus(429, 'Too many requests from this address'),
  };
}

/**
 * Named request examples: Swagger UI pre-fills the first one in "Try it out", so each must work as sent (or name
 * the resource it needs in its description); tests/gateway/openapi-examples.test.ts sends every one.
 */
export type BodyExamples<T> = Record<string, { summary: string; description?: string; value: T }>;

/** A required JSON body; the examples are typed by what the schema accepts. */
export const jsonBody = <T extends z.ZodType>(schema: T, examples: BodyExamples<z.input<T>>) => ({
  required: true,
  content: { 'application/json': { schema, examples } },
});

/** A required multipart body; its example lists each field (files described, not embedded). */
export const formBody = <T extends z.ZodObject>(schema: T, examples: BodyExamples<Record<keyof z.input<T>, string>>) => ({
  required: true,
  content: { 'multipart/form-data': { schema, examples } },
});

/** A JSON response; `example`, when the schema's own examples do not show the case (a queued document). */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string, example?: z.output<T>) => ({
  description,
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});

export const PaginationQuery = z.object({
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(20)
    .openapi({ param: { name: 'limit', in: 'query' }, example: 20 }),
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: 'Opaque; from pagination.next_cursor' }),
});

export const paginated = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    pagination: z.object({
      has_more: z.boolean(),
      next_cursor: z.string().optional(),
      limit: z.number().int(),
    }),
  });

export const idParam = (prefix: string) =>
  z.object({
    id: z
      .string()
      .max(64)
      .openapi({ param: { name: 'id', in: 'path' }, example: `${prefix}_01jd2m3k4n5p6q7r8s9t0v1w2x` }),
  });

export const DeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).openapi('Deleted');

/** Text an integrator stores and reads back (never printed on a fiscal document): well-formed, no control characters. */
const storable = (s: string) => s.isWellFormed() && !/[\u0000-\u001f\u007f]/.test(s);

/** The integrator's own key → value pairs on a resource, like Stripe's: at most 50 keys of ≤ 40 characters, values ≤ 500. */
export const Metadata = z
  .record(
    z.string().min(1, 'must not be empty').max(40, 'must be at most 40 characters').refine(storable, 'must not contain control characters or invalid unicode'),
    z.string().max(500, 'must be at most 500 characters').refine(storable, 'must not contain control characters or invalid unicode'),
    // A bad key is reported as the key's own problem ("metadata.<key>: key must be …"), not zod's generic "Invalid key".
    { error: (issue) => (issue.code === 'invalid_key' ? `key ${issue.issues[0]?.message ?? 'is invalid'}` : undefined) },
  )
  .refine((m) => Object.keys(m).length <= 50, 'must have at most 50 keys')
  .openapi('Metadata', {
    description:
      'Your own string key → string value pairs (at most 50 keys of up to 40 characters, values up to 500); returned as sent, never printed on the CFDI',
    example: { pedido: 'SO-10482', canal: 'tienda-en-linea' },
  });

/** The integrator's own reference for a resource (its order or document number): printable, matched exactly. */
export const ExternalId = z
  .string()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .refine(storable, 'must not contain control characters or invalid unicode')
  .openapi({ example: 'SO-10482' });

/** The Idempotency-Key header of the routes that take one (src/lib/idempotency.ts says how it behaves). */
export const IdempotencyKeyHeader = z
  .string()
  .optional()
  .openapi({
    description:
      'Replays the first response for 24 h. While another request with this key is still running (on any instance) this one waits up to 8 s ' +
      'for its answer, then answers from what it created, or 409 with error code `idempotency_key_in_use`; after a crash, a retry answers ' +
      'from what the first request created',
  });

/** The body limit of POST /retenciones/batch: 1,000 items of 1–2 KB each, with room (docs/decisions.md, "Retenciones: the batch"). */
export const BATCH_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The routes (POST) whose body may be larger than the gateway's limit for every other, and by how much. */
export const LARGER_BODIES: ReadonlyMap<string, number> = new Map([['/api/v1/retenciones/batch', BATCH_MAX_BODY_BYTES]]);
