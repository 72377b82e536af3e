/**
 * What the process fault tests' client loops share: a POST retried with its Idempotency-Key until an answer that is
 * not worth retrying arrives (as the README tells integrators), and a weighted draw of the next operation.
 */

/** Counters the loops keep: every request sent, those that got no answer, and the retries among them. */
export interface ClientCounts {
  requests: number;
  network_errors: number;
  retries: number;
}

export interface Answer {
  status: number;
  text: string;
  /** Parsed when the body is JSON. */
  json: any;
  replayed: boolean;
}

/**
 * Sends `send()` (which picks its target each time, so it follows a restarted server) until it answers with a status
 * `retry` does not ask to repeat; no answer at all (a killed server, a timeout) is always repeated. Undefined after
 * `maxAttempts` without such an answer. The request must carry its Idempotency-Key: repeating it is then safe.
 */
export async function sendUntilAnswered(
  send: (signal: AbortSignal) => Promise<Response>,
  counts: ClientCounts,
  {
    retry = () => false,
    maxAttempts = 200,
    pauseMs = 50,
    timeoutMs = 15_000,
  }: { retry?: (a: Answer) => boolean; maxAttempts?: number; pauseMs?: number; timeoutMs?: number } = {},
): Promise<Answer | undefined> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (attempt > 0) {
      counts.retries++;
      await Bun.sleep(pauseMs);
    }
    counts.requests++;
    let answer: Answer;
    try {
      const res = await send(AbortSignal.timeout(timeoutMs));
      const text = await res.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {}
      answer = { status: res.status, text, json, replayed: res.headers.get('idempotent-replayed') === 'true' };
    } catch {
      counts.network_errors++;
      continue;
    }
    if (!retry(answer)) return answer;
  }
  return undefined;
}

/** A weighted draw: `mix` pairs each operation with its share (any scale). */
export function drawFrom<T>(mix: [T, number][], random: () => number): T {
  const total = mix.reduce((a, [, w]) => a + w, 0);
  let x = random() * total;
  for (const [op, w] of mix) if ((x -= w) < 0) return op;
  return mix[mix.length - 1]![0];
}
