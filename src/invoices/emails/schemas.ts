import { z } from '@hono/zod-openapi';
import { EMAIL_STATUSES } from '../../db/schema/index.ts';
import { Email, PaginationQuery } from '../../lib/schemas.ts';
import type { EmailRow } from './outbox.ts';

const MAX_RECIPIENTS = 10;

/** What any request that emails a CFDI is told: who test mode sends to, and the budgets (docs/decisions.md, "Email budgets"). */
export const EMAIL_RULES =
  'In test mode (sk_test_ keys) the addresses must be those of your own users (else 400 naming the field), unless the operator captures every ' +
  'test-mode email in one mailbox (EMAIL_TEST_CAPTURE), which then receives it instead. Budgets, per UTC day: your tenant emails at most ' +
  'EMAIL_DAILY_LIMIT recipients (default 200; a message to 3 addresses counts 3; starter ×5, pro ×25, enterprise ×100), and one CFDI is ' +
  'emailed at most 5 times; past either, 429 with Retry-After, the message and details naming the budget (email_daily or cfdi_daily), its ' +
  'limit and when it resets (the next 00:00 UTC), and nothing is stored.';

/** The addresses a CFDI is emailed to (lower-cased; a repeated one is sent once). */
export const EmailRecipients = z
  .array(Email)
  .min(1, 'must list at least one address')
  .max(MAX_RECIPIENTS, `must list at most ${MAX_RECIPIENTS} addresses`)
  .openapi({ example: ['cuentas-por-pagar@example.com'] });

export const CfdiEmailRequestSchema = z
  .object({
    to: EmailRecipients.optional().openapi({
      description: "Default: the client's email, when the CFDI was issued with receptor_id and the client has one (else 400 naming `to`)",
    }),
  })
  .strict()
  .openapi('CfdiEmailRequest');
export type CfdiEmailRequest = z.infer<typeof CfdiEmailRequestSchema>;

export const CfdiEmailSchema = z
  .object({
    id: z.string().openapi({ example: 'eml_01jd2m3k4n5p6q7r8s9t0v1w2x' }),
    cfdi_id: z.string(),
    to: z.array(z.string()).openapi({ description: 'The recipients, in one message' }),
    status: z.enum(EMAIL_STATUSES).openapi({
      description:
        'queued: waiting to be sent (or for the CFDI to be stamped), retried with backoff while the SMTP server answers 4xx or cannot be reached; ' +
        'sent: the SMTP server accepted it; failed: refused for good (5xx), out of attempts, or the CFDI was never stamped',
    }),
    attempts: z.number().int().openapi({ description: 'Attempts made so far' }),
    last_response: z
      .string()
      .nullable()
      .openapi({ description: "The SMTP server's last answer (code and text), or why no server was reached", example: '250 2.0.0 Ok: queued as 4BX1Yq' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    sent_at: z.string().nullable().openapi({ format: 'date-time', description: 'When the SMTP server accepted it' }),
  })
  .openapi('CfdiEmail');

export const CfdiEmailListQuery = PaginationQuery;

export const toCfdiEmail = (r: EmailRow): z.infer<typeof CfdiEmailSchema> => ({
  id: r.id,
  cfdi_id: r.cfdiId,
  to: r.recipients,
  status: r.status,
  attempts: r.attempts,
  last_response: r.lastResponse,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  sent_at: r.sentAt,
});
