import type { Pac, StampFailureClass, StampOptions, StampResult } from './types.ts';

/**
 * One stamping attempt of a document, as persisted: which PAC, what it answered, when (ISO 8601). `sent` is written
 * before the request leaves: one that no answer of the same PAC follows (the process died, or the answer is still on
 * its way) is ambiguous from then.
 */
export interface StampAttempt {
  pac: string;
  outcome: 'sent' | 'stamped' | StampFailureClass;
  at: string;
}

/**
 * A routed stamp: the answer, the PAC that gave it (undefined when no single PAC's answer is returned: every PAC was
 * skipped or failed provider-side) and the attempts made by this call, oldest first, for the caller to persist.
 */
interface RoutedStamp {
  result: StampResult;
  pac: string | undefined;
  attempts: StampAttempt[];
  /**
   * Nothing was sent, and the routing changes at this time (ISO 8601): a skipped circuit half-opens or its probe has
   * been answered, or the document's window ends. A queued attempt waits for it rather than its backoff, without using
   * up an attempt. Absent when a call was made, or a PAC it waits for is not configured.
   */
  retryAt?: string;
}

type CircuitState = 'closed' | 'open' | 'half_open';

export interface PacState {
  name: string;
  circuit: CircuitState;
  consecutiveFailures: number;
  /** The last provider-side or ambiguous failure (a definitive or duplicate answer is the document's, not the PAC's). */
  lastError: { message: string; at: string } | null;
  /** The mean duration of the last LATENCY_WINDOW answers, in ms; null before the first. */
  latencyMs: number | null;
}

/** The longest a request to a PAC may take (the adapters' timeout is 10 s), with a margin. */
const REQUEST_TIMEOUT_MS = 15_000;

export interface PacRouterOptions {
  /** How long a document that got an ambiguous answer stays with that PAC, from its first ambiguous answer. */
  ambiguousWindowMs: number;
  /** The longest a request may be in flight (default 15 s): an unanswered `sent` is ambiguous from its end. */
  requestTimeoutMs?: number;
  breaker: {
    /** Consecutive provider-side or ambiguous failures that open the circuit. */
    failureThreshold: number;
    /** How long an open circuit skips its PAC before one probe is let through. */
    openMs: number;
  };
  now: () => Date;
}

/**
 * Awaited before a request leaves (with `sent`) and after each answer: the caller persists the attempt there, so no
 * other instance sends the document elsewhere meanwhile, and a process that dies between two calls leaves them in order.
 */
type RecordHook = (attempt: StampAttempt) => Promise<void>;

export interface PacRouter {
  stamp(sealedXml: string, options: StampOptions, history: readonly StampAttempt[], record?: RecordHook): Promise<RoutedStamp>;
  states(): PacState[];
  /** At least one PAC's circuit is closed, or none is configured: what /health reports. */
  healthy(): boolean;
  /** The adapter by its registry name: cancellation, acuse and SAT status go through the PAC that stamped. */
  pac(name: string): Pac | undefined;
}

const LATENCY_WINDOW = 20;

interface Breaker {
  open: boolean;
  openedAt: number;
  consecutiveFailures: number;
  probing: boolean;
  /** When the probe in flight left: its answer comes by then + the request timeout. */
  probeStartedAt: number;
  lastError: { message: string; at: string } | null;
  latencies: number[];
}

/** Why a document may only go to one PAC (docs/decisions.md, "PAC failover"); `until`: when a window pin ends (ms). */
type Pin = { pac: string; reason: string; until?: number } | undefined;

/**
 * Orders the configured PACs for one document from its history, written by any instance. A stamp, a duplicate or a
 * definitive answer pins it to that PAC for good; an ambiguous one pins it to that PAC until `windowMs` after that
 * PAC's first ambiguous answer, and afterwards puts that PAC last; provider-side failures leave the order as it is.
 */
function route(
  names: readonly string[],
  recorded: readonly StampAttempt[],
  now: number,
  windowMs: number,
  askable: (pac: string) => boolean,
  inFlightMs: number,
): { pin: Pin; order: string[] } {
  // An unanswered `sent` is ambiguous from when its answer can no longer come (the request's timeout): until then the
  // request may still be in flight in another process, and its answer may be a stamp.
  const history = recorded.flatMap((a, i): StampAttempt[] => {
    if (a.outcome !== 'sent') return [a];
    const answered = recorded.slice(i + 1).some((later) => later.pac === a.pac && later.outcome !== 'sent');
    const lastPossibleAnswer = Date.parse(a.at) + inFlightMs;
    return answered ? [] : [{ ...a, outcome: 'ambiguous', at: Number.isNaN(lastPossibleAnswer) ? a.at : new Date(lastPossibleAnswer).toISOString() }];
  });
  const settled = history.find((a) => a.outcome === 'stamped' || a.outcome === 'duplicate' || a.outcome === 'definitive');
  if (settled) return { pin: { pac: settled.pac, reason: `it has a ${settled.outcome} answer from ${settled.pac} at ${settled.at}` }, order: [settled.pac] };
  const firstAmbiguous = new Map<string, { ms: number; at: string }>();
  for (const a of history) {
    // A time that does not parse keeps the document where it is (the oldest claim): waiting is safe, another PAC is not.
    const ms = Date.parse(a.at);
    if (a.outcome === 'ambiguous' && !firstAmbiguous.has(a.pac)) firstAmbiguous.set(a.pac, { ms: Number.isNaN(ms) ? -Infinity : ms, at: a.at });
  }
  // The oldest claim first: two PACs inside their windows at once only happens when instances raced.
  const waiting = [...firstAmbiguous]
    .filter(([, first]) => first.ms === -Infinity || now < first.ms + windowMs)
    .sort((a, b) => a[1].ms - b[1].ms || (a[0] < b[0] ? -1 : 1))[0];
  if (waiting) {
    const [pac, first] = waiting;
    const until = first.ms === -Infinity ? 'its time is readable' : new Date(first.ms + windowMs).toISOString();
    return {
      pin: { pac, reason: `${pac} answered ambiguously at ${first.at}, it stays there until ${until}`, until: first.ms + windowMs },
      order: [pac],
    };
  }
  // Released PACs, the one asked most recently first: it is the likeliest to hold a stamp it never answered (a process
  // killed mid-request), and asking it again with the same bytes returns that stamp instead of making another. One
  // that cannot be asked for a stamp without stamping (Pac.recover) goes before the PACs not tried yet: a second stamp
  // elsewhere could never be found. One that can be asked goes after them: a second stamp is found and cancelled.
  const lastAsked = new Map(history.map((a) => [a.pac, Date.parse(a.at)]));
  const released = names.filter((n) => firstAmbiguous.has(n)).sort((a, b) => (lastAsked.get(b) ?? 0) - (lastAsked.get(a) ?? 0));
  const untried = names.filter((n) => !firstAmbiguous.has(n));
  return { pin: undefined, order: [...released.filter((n) => !askable(n)), ...untried, ...released.filter(askable)] };
}

/**
 * Sends a sealed document to the first PAC that may stamp it, in the operator's order, and keeps a circuit breaker
 * per PAC. In memory, per instance: the document's history is what instances share (docs/decisions.md, "PAC failover").
 */
export function createPacRouter(pacs: readonly Pac[], options: PacRouterOptions): PacRouter {
  const byName = new Map(pacs.map((p) => [p.name, p]));
  if (byName.size !== pacs.length) throw new Error(`two PACs share a name: ${pacs.map((p) => p.name).join(', ')}`);
  const { failureThreshold, openMs } = options.breaker;
  const breakers = new Map<string, Breaker>(
    pacs.map((p) => [p.name, { open: false, openedAt: 0, consecutiveFailures: 0, probing: false, probeStartedAt: 0, lastError: null, latencies: [] }]),
  );
  const clock = () => options.now().getTime();

  const circuitOf = (b: Breaker, at: number): CircuitState => (!b.open ? 'closed' : at - b.openedAt >= openMs ? 'half_open' : 'open');

  /** Whether a call may go out now: `probe` is the one call a half-open circuit lets through. */
  function admit(b: Breaker): 'call' | 'probe' | undefined {
    const state = circuitOf(b, clock());
    if (state === 'closed') return 'call';
    if (state === 'open' || b.probing) return undefined;
    b.probing = true;
    b.probeStartedAt = clock();
    return 'probe';
  }

  /** Records an answer received at `at`. */
  function settle(b: Breaker, admitted: 'call' | 'probe', outcome: StampAttempt['outcome'], message: string, startedAt: number, at: number) {
    b.latencies.push(at - startedAt);
    if (b.latencies.length > LATENCY_WINDOW) b.latencies.shift();
    if (admitted === 'probe') b.probing = false;
    // A stamp, a duplicate or a data error is the PAC working.
    if (outcome !== 'provider' && outcome !== 'ambiguous') {
      b.open = false;
      b.consecutiveFailures = 0;
      return;
    }
    b.consecutiveFailures++;
    b.lastError = { message, at: new Date(at).toISOString() };
    if (admitted === 'probe' || (!b.open && b.consecutiveFailures >= failureThreshold)) {
      b.open = true;
      b.openedAt = at;
    }
  }

  async function call(pac: Pac, b: Breaker, admitted: 'call' | 'probe', sealedXml: string, stampOptions: StampOptions, record: RecordHook | undefined) {
    let result: StampResult;
    try {
      await record?.({ pac: pac.name, outcome: 'sent', at: new Date(clock()).toISOString() });
    } catch (err) {
      if (admitted === 'probe') b.probing = false;
      throw err;
    }
    const startedAt = clock();
    try {
      result = await pac.stamp(sealedXml, stampOptions);
    } catch (err) {
      // An adapter that throws may have sent the request: the same rule as a timeout after sending.
      result = { ok: false, class: 'ambiguous', message: `PAC failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    const outcome = result.ok ? 'stamped' : result.class;
    const at = clock();
    settle(b, admitted, outcome, result.ok ? '' : result.message, startedAt, at);
    const attempt: StampAttempt = { pac: pac.name, outcome, at: new Date(at).toISOString() };
    await record?.(attempt);
    return { result, attempt };
  }

  async function stamp(sealedXml: string, stampOptions: StampOptions, history: readonly StampAttempt[], record?: RecordHook): Promise<RoutedStamp> {
    const { pin, order } = route(
      [...byName.keys()],
      history,
      clock(),
      options.ambiguousWindowMs,
      (n) => byName.get(n)?.recover !== undefined,
      options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    );
    const attempts: StampAttempt[] = [];
    const reasons: string[] = [];
    // When each skipped PAC may be asked again: its circuit half-opens, or its probe's answer has come at the latest;
    // NaN: never (not configured).
    const reopens: number[] = [];
    for (const name of order) {
      const pac = byName.get(name);
      const b = breakers.get(name);
      if (!pac || !b) {
        reasons.push(`${name} is not configured`);
        reopens.push(Number.NaN);
        continue;
      }
      const admitted = admit(b);
      if (!admitted) {
        reasons.push(b.probing ? `${name}'s circuit is half-open, its probe in flight` : `${name}'s circuit is open`);
        reopens.push(b.probing ? b.probeStartedAt + (options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS) : b.openedAt + openMs);
        continue;
      }
      const { result, attempt } = await call(pac, b, admitted, sealedXml, stampOptions, record);
      attempts.push(attempt);
      // Only a provider-side failure lets the document go on to the next PAC in the same call.
      if (result.ok || result.class !== 'provider') return { result, pac: name, attempts };
      if (order.length === 1) return { result, pac: name, attempts };
      reasons.push(`${name}: ${result.message}`);
    }
    const message = pin
      ? `Not sent: the document waits for ${pin.pac} (${reasons.join('; ')}), since ${pin.reason}`
      : order.length === 0
        ? 'Not sent: no PAC is configured'
        : `Not stamped by any PAC: ${reasons.join('; ')}`;
    const changes = [...reopens, ...(pin?.until !== undefined ? [pin.until] : [])];
    const retryAt = attempts.length === 0 && changes.length > 0 && !changes.some(Number.isNaN) ? new Date(Math.min(...changes)).toISOString() : undefined;
    return { result: { ok: false, class: 'provider', message }, pac: undefined, attempts, ...(retryAt && { retryAt }) };
  }

  return {
    stamp,
    states: () => {
      const at = clock();
      return pacs.map((p) => {
        const b = breakers.get(p.name)!;
        return {
          name: p.name,
          circuit: circuitOf(b, at),
          consecutiveFailures: b.consecutiveFailures,
          lastError: b.lastError,
          latencyMs: b.latencies.length === 0 ? null : Math.round(b.latencies.reduce((s, x) => s + x, 0) / b.latencies.length),
        };
      });
    },
    healthy: () => pacs.length === 0 || [...breakers.values()].some((b) => !b.open),
    pac: (name) => byName.get(name),
  };
}
