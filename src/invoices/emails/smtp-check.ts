import type { Logger } from '../../lib/logger.ts';
import type { Mailer } from './smtp.ts';

/**
 * What GET /health says of email. not_configured: no SMTP_URL; checking: the first check has not answered yet;
 * ok: the server greeted (and took the login) at `checked_at`; unreachable: it did not, `message` says why.
 */
type SmtpStatus =
  | { status: 'not_configured' }
  | { status: 'checking'; server: string }
  | { status: 'ok'; server: string; checked_at: string }
  | { status: 'unreachable'; server: string; checked_at: string; message: string };

/** A minute between checks: a probe every second must not open an SMTP connection every second. */
const SMTP_CHECK_MS = 60_000;

export interface SmtpCheck {
  /** Checks now (a check in flight is shared) and answers when it ends. */
  run(): Promise<SmtpStatus>;
  /** The last result at once; when it is older than SMTP_CHECK_MS a new check starts behind it, never waited for. */
  current(): SmtpStatus;
}

/**
 * The SMTP server's reachability, cached. A change of state is logged (the first result too: the one line at
 * start), so a server that goes away or comes back shows in the log, not once per probe.
 */
export function createSmtpCheck(mailer: Mailer | undefined, now: () => Date, logger: Logger): SmtpCheck {
  if (!mailer) return { run: async () => ({ status: 'not_configured' }), current: () => ({ status: 'not_configured' }) };
  let last: SmtpStatus = { status: 'checking', server: mailer.server };
  let at = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<SmtpStatus> | undefined;
  const run = () =>
    (inFlight ??= (async () => {
      const outcome = await mailer.verify();
      const checked = now();
      const before = last.status;
      last = outcome.ok
        ? { status: 'ok', server: mailer.server, checked_at: checked.toISOString() }
        : { status: 'unreachable', server: mailer.server, checked_at: checked.toISOString(), message: outcome.response };
      at = checked.getTime();
      inFlight = undefined;
      if (last.status !== before) {
        if (outcome.ok) logger.info('SMTP server reachable: greeting ok', { server: mailer.server });
        else logger.warn('SMTP server unreachable: CFDI emails wait in the queue and are retried', { server: mailer.server, response: outcome.response });
      }
      return last;
    })());
  return {
    run,
    current() {
      const t = now().getTime();
      if (!inFlight && (t - at >= SMTP_CHECK_MS || t < at)) void run();
      return last;
    },
  };
}
