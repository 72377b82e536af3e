import { createTransport } from 'nodemailer';
import { DEFAULT_EMAIL_DAILY_LIMIT } from '../../lib/plans.ts';
import { invalidInput } from '../../lib/service-error.ts';

/** One message as the job hands it over: the sender's display name, the recipients, the text and the attachments. */
export interface OutgoingEmail {
  /** The tenant's name, shown as `<name> vía <operator>` (senderName); the address is always SMTP_FROM's. */
  fromName: string;
  /** The tenant's reply_to: customers' replies reach the issuer, not the operator's SMTP_FROM mailbox. */
  replyTo?: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string; cid?: string }[];
}

/**
 * What the SMTP server answered. `permanent`: a 5xx reply (but 503), which sending the same message again would
 * get again; a 4xx reply, a dropped or refused connection or a timeout may go through later.
 */
type SendOutcome = { ok: true; response: string } | { ok: false; permanent: boolean; response: string };

export interface Mailer {
  send(message: OutgoingEmail): Promise<SendOutcome>;
  /** Connects, reads the greeting, says EHLO (STARTTLS and AUTH as SMTP_URL asks) and quits: could a message go now. */
  verify(): Promise<{ ok: true } | { ok: false; response: string }>;
  /** host:port of the server, without the credentials SMTP_URL carries: what the logs and /health name. */
  server: string;
  /** EMAIL_DAILY_LIMIT: recipients a sandbox-plan tenant may email per UTC day (plans raise it). */
  dailyLimit: number;
  /** EMAIL_TEST_CAPTURE: the one mailbox every test-mode email goes to, whatever its recipients. */
  testCapture?: string;
}

/** The properties nodemailer sets on the errors it throws (see its NodemailerError). */
interface SmtpError extends Error {
  code?: string;
  response?: string;
  responseCode?: number;
  permanent?: boolean;
}

/** Generous for a server that greylists or is slow under load, short enough that a dead one frees the job soon. */
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };
/** A check only greets: a server that has not answered in 10 s is reported unreachable. */
const CHECK_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 10_000 };

/** The server's reply when it gave one, else the error (ECONNREFUSED, ETIMEDOUT, a TLS failure). */
function failureOf(err: unknown): string {
  const e = err as SmtpError;
  return e.response ?? `${e.code ? `${e.code}: ` : ''}${e.message}`;
}

/** SMTP_FROM's address, without the display name it may carry ("Facturas <facturas@example.com>"). */
const addressOf = (from: string) => /<([^>]+)>/.exec(from)?.[1] ?? from.trim();

/** What a display name keeps: no quotes, angle brackets, @ (nor their look-alikes), commas, semicolons or control characters, one space between words. */
const plainName = (name: string, max: number) =>
  name
    .replace(/[\p{Cc}\p{Cf}"'`<>@,;:\\()[\]\u2039\u203a\u00ab\u00bb\u2018-\u201f\uff02\uff1c\uff1e\uff20\ufe6b]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();

/**
 * The From display name: `<tenant> vía <operator>` (the operator is SMTP_FROM's display name, else its domain). A
 * tenant's name is the customer's to choose: with no address-like characters left, it cannot pose as another
 * sender's address (`"Soporte <security@bank.example>"`), and the operator's name says who relays it.
 */
function senderName(tenantName: string, from: string): string {
  const operator = plainName(/^([^<]*)</.exec(from)?.[1] ?? '', 64) || addressOf(from).split('@')[1] || '';
  const tenant = plainName(tenantName, 80) || 'Su proveedor';
  return operator ? `${tenant} vía ${operator}` : tenant;
}

/**
 * Sends through the SMTP server of SMTP_URL (nodemailer: STARTTLS when an smtp:// server offers it, TLS from the
 * start with smtps://), one connection per message.
 */
export function createSmtpMailer(config: { url: string; from: string; dailyLimit?: number; testCapture?: string }): Mailer {
  const transport = createTransport({ url: config.url, ...TIMEOUTS });
  const checking = createTransport({ url: config.url, ...CHECK_TIMEOUTS });
  const address = addressOf(config.from);
  const url = new URL(config.url);
  // nodemailer's defaults when SMTP_URL names no port.
  const server = `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`;
  return {
    server,
    dailyLimit: config.dailyLimit ?? DEFAULT_EMAIL_DAILY_LIMIT,
    ...(config.testCapture ? { testCapture: config.testCapture } : {}),
    async verify() {
      try {
        await checking.verify();
        return { ok: true };
      } catch (err) {
        return { ok: false, response: failureOf(err) };
      }
    },
    async send(m) {
      try {
        const info = await transport.sendMail({
          from: { name: senderName(m.fromName, config.from), address },
          ...(m.replyTo ? { replyTo: m.replyTo } : {}),
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          attachments: m.attachments,
        });
        const rejected = info.rejected.map(String);
        return { ok: true, response: rejected.length ? `${info.response} (refused: ${rejected.join(', ')})` : info.response };
      } catch (err) {
        return { ok: false, permanent: (err as SmtpError).permanent === true, response: failureOf(err) };
      }
    },
  };
}

/** What a request that asks for email is told on a server without SMTP_URL, naming the `field` that asked. */
export const NO_SMTP = 'this server has no SMTP configured (its operator has not set SMTP_URL and SMTP_FROM), so nothing can be emailed';

/**
 * The server's mailer, or invalid input naming `field` (400 on the invoice routes): a server without SMTP_URL stays
 * so until its operator sets it, so the request is refused as it is, not as a wait (503); nothing is stored.
 */
export function requireMailer(deps: { mailer?: Mailer }, field: string): Mailer {
  if (deps.mailer) return deps.mailer;
  throw invalidInput('Email is not configured on this server', [{ field, issue: `${NO_SMTP}; nothing was stored or queued` }]);
}
