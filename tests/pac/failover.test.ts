import { describe, expect, test } from 'bun:test';
import { createPacRouter, type StampAttempt } from '../../src/pac/failover.ts';
import type { Pac, StampResult } from '../../src/pac/types.ts';

/** What a scripted PAC answers: a result, or a gate the test opens to answer (a call in flight). */
type Answer = StampResult | 'stamped' | Promise<StampResult>;

const STAMP: StampResult = { ok: true, xml: '<cfdi/>', tfd: {} as never };
const DEFINITIVE: StampResult = { ok: false, class: 'definitive', code: '302', message: 'Sello mal formado o inválido' };
const DUPLICATE: StampResult = { ok: false, class: 'duplicate', code: '307', message: 'Timbre previo' };
const PROVIDER: StampResult = { ok: false, class: 'provider', message: 'PAC unreachable: ECONNREFUSED' };
const AMBIGUOUS: StampResult = { ok: false, class: 'ambiguous', message: 'PAC answered HTTP 502' };

/** A fake PAC answering from its script (then `otherwise`), counting its calls; `latencyMs` moves the clock per call. */
interface FakePac {
  script: Answer[];
  calls: number;
  latencyMs: number;
  adapter: Pac;
}

/** `askable`: the fake can be asked for an earlier stamp without stamping (Pac.recover), as Finkok can and SW cannot. */
function fakePac(name: string, clock: { ms: number }, otherwise: StampResult = STAMP, askable = true): FakePac {
  const pac: FakePac = {
    script: [],
    calls: 0,
    latencyMs: 0,
    adapter: {
      name,
      async stamp(): Promise<StampResult> {
        pac.calls++;
        const next: Answer = pac.script.shift() ?? otherwise;
        clock.ms += pac.latencyMs;
        return next === 'stamped' ? STAMP : next;
      },
      cancel: () => Promise.reject(new Error('not scripted')),
      status: () => Promise.reject(new Error('not scripted')),
      ...(askable && { recover: async () => undefined }),
    },
  };
  return pac;
}

const T0 = Date.parse('2026-11-27T12:00:00.000Z');
const WINDOW = 600_000;
const OPEN_MS = 30_000;

function setup(names = ['a', 'b'], threshold = 3, unaskable: string[] = []) {
  const clock = { ms: T0 };
  const pacs = names.map((n) => fakePac(n, clock, STAMP, !unaskable.includes(n)));
  const router = createPacRouter(
    pacs.map((p) => p.adapter),
    { ambiguousWindowMs: WINDOW, breaker: { failureThreshold: threshold, openMs: OPEN_MS }, now: () => new Date(clock.ms) },
  );
  const calls = () => pacs.map((p) => p.calls);
  return { clock, router, pacs, calls, a: pacs[0]!, b: pacs[1]! };
}

const OPTIONS = { tenantId: 'tenant' };
const iso = (ms: number) => new Date(ms).toISOString();
const gate = () => {
  let open!: (r: StampResult) => void;
  const promise = new Promise<StampResult>((resolve) => (open = resolve));
  return { promise, open };
};

describe('routing a document by its answers', () => {
  test('the first PAC stamps: its answer, its name, one attempt; the second is never asked', async () => {
    const { router, calls } = setup();
    const routed = await router.stamp('<x/>', OPTIONS, []);
    expect(routed).toEqual({ result: STAMP, pac: 'a', attempts: [{ pac: 'a', outcome: 'stamped', at: iso(T0) }] });
    expect(calls()).toEqual([1, 0]);
  });

  test('definitive: returned at once, no other PAC, then or in any later call', async () => {
    const { router, a, calls } = setup();
    a.script.push(DEFINITIVE);
    const routed = await router.stamp('<x/>', OPTIONS, []);
    expect(routed.result).toEqual(DEFINITIVE);
    expect(routed.pac).toBe('a');
    expect(calls()).toEqual([1, 0]);
    // Asked again (by a caller that should not have): still only a, even when a is down.
    a.script.push(PROVIDER);
    const again = await router.stamp('<x/>', OPTIONS, routed.attempts);
    expect(again.result).toEqual(PROVIDER);
    expect(calls()).toEqual([2, 0]);
  });

  test('duplicate: only the same PAC ever again, even when it fails provider-side or the window has long passed', async () => {
    const { router, clock, a, calls } = setup();
    a.script.push(DUPLICATE);
    const first = await router.stamp('<x/>', OPTIONS, []);
    expect(first.result).toEqual(DUPLICATE);
    expect(calls()).toEqual([1, 0]);
    clock.ms += WINDOW * 10;
    a.script.push(PROVIDER, AMBIGUOUS, 'stamped');
    const history = [...first.attempts];
    for (const expected of [PROVIDER, AMBIGUOUS, STAMP]) {
      const routed = await router.stamp('<x/>', OPTIONS, history);
      expect(routed.result).toEqual(expected);
      expect(routed.pac).toBe('a');
      history.push(...routed.attempts);
    }
    expect(calls()).toEqual([4, 0]);
  });

  test('provider-side: the next PAC at once, in the same call; both attempts come back', async () => {
    const { router, a, calls } = setup();
    a.script.push(PROVIDER);
    const routed = await router.stamp('<x/>', OPTIONS, []);
    expect(routed.result).toEqual(STAMP);
    expect(routed.pac).toBe('b');
    expect(routed.attempts.map((x) => [x.pac, x.outcome])).toEqual([
      ['a', 'provider'],
      ['b', 'stamped'],
    ]);
    expect(calls()).toEqual([1, 1]);
  });

  test('every PAC fails provider-side: class provider, no PAC named, each reason in the message', async () => {
    const { router, a, b } = setup();
    a.script.push(PROVIDER);
    b.script.push({ ok: false, class: 'provider', message: 'timbres agotados' });
    const routed = await router.stamp('<x/>', OPTIONS, []);
    expect(routed.pac).toBeUndefined();
    expect(routed.result).toMatchObject({ ok: false, class: 'provider' });
    expect(!routed.result.ok && routed.result.message).toBe('Not stamped by any PAC: a: PAC unreachable: ECONNREFUSED; b: timbres agotados');
    expect(routed.attempts.map((x) => x.outcome)).toEqual(['provider', 'provider']);
  });

  test('with one PAC, its own provider-side failure comes back as it answered', async () => {
    const { router, a } = setup(['a']);
    a.script.push(PROVIDER);
    expect(await router.stamp('<x/>', OPTIONS, [])).toEqual({ result: PROVIDER, pac: 'a', attempts: [{ pac: 'a', outcome: 'provider', at: iso(T0) }] });
  });

  test('a provider-side failure in an earlier call does not move the document: the first PAC is asked again', async () => {
    const { router, calls } = setup();
    const routed = await router.stamp('<x/>', OPTIONS, [{ pac: 'a', outcome: 'provider', at: iso(T0 - 1000) }]);
    expect(routed.pac).toBe('a');
    expect(calls()).toEqual([1, 0]);
  });

  test('no PAC configured: a provider failure without a call', async () => {
    const router = createPacRouter([], { ambiguousWindowMs: WINDOW, breaker: { failureThreshold: 3, openMs: OPEN_MS }, now: () => new Date(T0) });
    expect(await router.stamp('<x/>', OPTIONS, [])).toEqual({
      result: { ok: false, class: 'provider', message: 'Not sent: no PAC is configured' },
      pac: undefined,
      attempts: [],
    });
  });

  test('an adapter that throws counts as ambiguous (the request may have left)', async () => {
    const { router, a, calls } = setup();
    a.script.push(Promise.reject(new Error('socket hang up')));
    const routed = await router.stamp('<x/>', OPTIONS, []);
    expect(routed.result).toEqual({ ok: false, class: 'ambiguous', message: 'PAC failed: socket hang up' });
    expect(calls()).toEqual([1, 0]);
  });
});

describe('the ambiguous window', () => {
  test('ambiguous: no other PAC in the call; only that PAC until the window has passed since its FIRST ambiguous answer', async () => {
    const { router, clock, a, calls } = setup();
    a.script.push(AMBIGUOUS);
    const first = await router.stamp('<x/>', OPTIONS, []);
    expect(first.result).toEqual(AMBIGUOUS);
    expect(first.pac).toBe('a');
    expect(calls()).toEqual([1, 0]);
    const history = [...first.attempts];
    // A later ambiguous answer does not restart the window; a provider-side one inside it does not release the document.
    clock.ms = T0 + WINDOW / 2;
    a.script.push(AMBIGUOUS);
    history.push(...(await router.stamp('<x/>', OPTIONS, history)).attempts);
    clock.ms = T0 + WINDOW - 1;
    a.script.push(PROVIDER);
    const inside = await router.stamp('<x/>', OPTIONS, history);
    expect(inside).toMatchObject({ result: PROVIDER, pac: 'a' });
    expect(calls()).toEqual([3, 0]);
    history.push(...inside.attempts);
    // At the boundary, the next PAC first.
    clock.ms = T0 + WINDOW;
    const after = await router.stamp('<x/>', OPTIONS, history);
    expect(after.pac).toBe('b');
    expect(calls()).toEqual([3, 1]);
  });

  test('after its window, the PAC that answered ambiguously comes last: tried again when the others fail provider-side', async () => {
    const { router, a, b, calls } = setup();
    b.script.push(PROVIDER);
    const routed = await router.stamp('<x/>', OPTIONS, [{ pac: 'a', outcome: 'ambiguous', at: iso(T0 - WINDOW) }]);
    expect(routed.attempts.map((x) => [x.pac, x.outcome])).toEqual([
      ['b', 'provider'],
      ['a', 'stamped'],
    ]);
    expect(calls()).toEqual([1, 1]);
    expect(a.calls + b.calls).toBe(2);
  });

  test('a history written by another instance pins the document on a fresh router', async () => {
    const { router, calls } = setup(['a', 'b', 'c']);
    // The other instance failed over from a (provider) to b, which answered ambiguously a second ago.
    const history: StampAttempt[] = [
      { pac: 'a', outcome: 'provider', at: iso(T0 - 2000) },
      { pac: 'b', outcome: 'ambiguous', at: iso(T0 - 1000) },
    ];
    expect((await router.stamp('<x/>', OPTIONS, history)).pac).toBe('b');
    expect(calls()).toEqual([0, 1, 0]);
    // Another one's duplicate at c: only c, although a and b come first and are up.
    expect((await router.stamp('<y/>', OPTIONS, [{ pac: 'c', outcome: 'duplicate', at: iso(T0 - WINDOW * 5) }])).pac).toBe('c');
    expect(calls()).toEqual([0, 1, 1]);
  });

  test('an ambiguous answer whose time does not parse keeps the document with that PAC', async () => {
    const { router, calls } = setup();
    expect((await router.stamp('<x/>', OPTIONS, [{ pac: 'b', outcome: 'ambiguous', at: 'yesterday' }])).pac).toBe('b');
    expect(calls()).toEqual([0, 1]);
  });

  test('a document pinned to a PAC that is no longer configured waits for it', async () => {
    const { router, calls } = setup();
    const routed = await router.stamp('<x/>', OPTIONS, [{ pac: 'gone', outcome: 'ambiguous', at: iso(T0 - 1000) }]);
    expect(routed.pac).toBeUndefined();
    expect(routed.attempts).toEqual([]);
    expect(!routed.result.ok && routed.result.message).toStartWith('Not sent: the document waits for gone (gone is not configured)');
    expect(calls()).toEqual([0, 0]);
  });
});

describe('circuit breakers', () => {
  test('open after the threshold of consecutive provider-side or ambiguous failures; a definitive or duplicate answer resets the count', async () => {
    const { router, a, calls } = setup(['a', 'b'], 3);
    a.script.push(PROVIDER, PROVIDER, DUPLICATE, PROVIDER, PROVIDER);
    for (let i = 0; i < 5; i++) await router.stamp(`<x${i}/>`, OPTIONS, []);
    expect(router.states()[0]).toMatchObject({ name: 'a', circuit: 'closed', consecutiveFailures: 2 });
    a.script.push(AMBIGUOUS);
    await router.stamp('<y/>', OPTIONS, []);
    expect(router.states()[0]).toMatchObject({ circuit: 'open', consecutiveFailures: 3, lastError: { message: AMBIGUOUS.message, at: iso(T0) } });
    expect(calls()).toEqual([6, 4]);
    // Open: a is skipped, b answers, without a's call.
    expect((await router.stamp('<z/>', OPTIONS, [])).pac).toBe('b');
    expect(calls()).toEqual([6, 5]);
  });

  test('a definitive answer is the PAC working: it never opens the circuit', async () => {
    const { router, a } = setup(['a', 'b'], 1);
    a.script.push(DEFINITIVE, DEFINITIVE);
    await router.stamp('<x/>', OPTIONS, []);
    await router.stamp('<y/>', OPTIONS, []);
    expect(router.states()[0]).toMatchObject({ circuit: 'closed', consecutiveFailures: 0, lastError: null });
  });

  test('a document pinned to a PAC whose circuit is open gets a failure without a call, saying it waits', async () => {
    const { router, a, calls } = setup(['a', 'b'], 1);
    a.script.push(PROVIDER);
    await router.stamp('<other/>', OPTIONS, []);
    expect(router.states()[0]!.circuit).toBe('open');
    const routed = await router.stamp('<x/>', OPTIONS, [{ pac: 'a', outcome: 'duplicate', at: iso(T0 - 5000) }]);
    expect(routed.pac).toBeUndefined();
    expect(routed.attempts).toEqual([]);
    expect(routed.result).toEqual({
      ok: false,
      class: 'provider',
      message: `Not sent: the document waits for a (a's circuit is open), since it has a duplicate answer from a at ${iso(T0 - 5000)}`,
    });
    expect(routed.retryAt).toBe(iso(T0 + OPEN_MS));
    expect(calls()).toEqual([1, 1]);
  });

  test("pinned for its window to a PAC whose circuit is open: retried when the first of the two ends; during a probe, when the probe's answer has come at the latest", async () => {
    const { clock, router, a } = setup(['a', 'b'], 1);
    a.script.push(PROVIDER);
    await router.stamp('<other/>', OPTIONS, []);
    // The window (600 s) ends long after the circuit half-opens (30 s).
    const early = await router.stamp('<x/>', OPTIONS, [{ pac: 'a', outcome: 'ambiguous', at: iso(T0) }]);
    expect(early.retryAt).toBe(iso(T0 + OPEN_MS));
    // The window ends first.
    const late = await router.stamp('<x/>', OPTIONS, [{ pac: 'a', outcome: 'ambiguous', at: iso(T0 - WINDOW + 10_000) }]);
    expect(late.retryAt).toBe(iso(T0 + 10_000));
    // Half-open, its probe in flight: asked again once the probe's answer has come at the latest (the 15 s request timeout).
    let answer!: (r: StampResult) => void;
    a.script.push(new Promise<StampResult>((resolve) => (answer = resolve)));
    clock.ms += OPEN_MS;
    const probe = router.stamp('<probe/>', OPTIONS, []);
    const skipped = await router.stamp('<x/>', OPTIONS, [{ pac: 'a', outcome: 'ambiguous', at: iso(clock.ms) }]);
    expect(skipped.attempts).toEqual([]);
    expect(skipped.retryAt).toBe(iso(clock.ms + 15_000));
    // Pinned to a PAC that is not configured: no time can be given.
    expect((await router.stamp('<y/>', OPTIONS, [{ pac: 'gone', outcome: 'duplicate', at: iso(T0) }])).retryAt).toBeUndefined();
    answer(STAMP);
    await probe;
  });

  test('every PAC open: class provider without a call', async () => {
    const { router, a, b, calls } = setup(['a', 'b'], 1);
    a.script.push(PROVIDER);
    b.script.push(PROVIDER);
    await router.stamp('<x/>', OPTIONS, []);
    expect(router.healthy()).toBe(false);
    const routed = await router.stamp('<y/>', OPTIONS, []);
    expect(routed).toEqual({
      result: { ok: false, class: 'provider', message: "Not stamped by any PAC: a's circuit is open; b's circuit is open" },
      pac: undefined,
      attempts: [],
      // Nothing sent: a queued attempt waits until the first circuit half-opens, not for its backoff.
      retryAt: iso(T0 + OPEN_MS),
    });
    expect(calls()).toEqual([1, 1]);
  });

  test('half-open after openMs: ONE probe at a time, concurrent callers skip the PAC meanwhile; closed on its success', async () => {
    const { router, clock, a, calls } = setup(['a', 'b'], 1);
    a.script.push(PROVIDER);
    await router.stamp('<x/>', OPTIONS, []);
    clock.ms += OPEN_MS - 1;
    expect(router.states()[0]!.circuit).toBe('open');
    expect((await router.stamp('<y/>', OPTIONS, [])).pac).toBe('b');
    clock.ms += 1;
    expect(router.states()[0]!.circuit).toBe('half_open');
    const probe = gate();
    a.script.push(probe.promise);
    const probing = router.stamp('<probe/>', OPTIONS, []);
    const during = await Promise.all([router.stamp('<p/>', OPTIONS, []), router.stamp('<q/>', OPTIONS, [])]);
    expect(during.map((r) => r.pac)).toEqual(['b', 'b']);
    // A document pinned to a waits rather than queue behind the probe.
    const pinned = await router.stamp('<r/>', OPTIONS, [{ pac: 'a', outcome: 'ambiguous', at: iso(clock.ms) }]);
    expect(pinned.attempts).toEqual([]);
    expect(!pinned.result.ok && pinned.result.message).toStartWith(
      "Not sent: the document waits for a (a's circuit is half-open, its probe in flight), since a answered",
    );
    expect(calls()).toEqual([2, 4]);
    probe.open(STAMP);
    expect((await probing).pac).toBe('a');
    expect(router.states()[0]).toMatchObject({ circuit: 'closed', consecutiveFailures: 0 });
    expect((await router.stamp('<s/>', OPTIONS, [])).pac).toBe('a');
  });

  test("the probe's failure opens the circuit again for another openMs", async () => {
    const { router, clock, a, calls } = setup(['a', 'b'], 1);
    a.script.push(PROVIDER);
    await router.stamp('<x/>', OPTIONS, []);
    clock.ms += OPEN_MS;
    a.script.push(AMBIGUOUS);
    const probe = await router.stamp('<probe/>', OPTIONS, []);
    expect(probe.result).toEqual(AMBIGUOUS);
    expect(router.states()[0]).toMatchObject({ circuit: 'open', consecutiveFailures: 2, lastError: { message: AMBIGUOUS.message, at: iso(clock.ms) } });
    clock.ms += OPEN_MS - 1;
    expect((await router.stamp('<y/>', OPTIONS, [])).pac).toBe('b');
    clock.ms += 1;
    expect((await router.stamp('<z/>', OPTIONS, [])).pac).toBe('a');
    expect(calls()).toEqual([3, 2]);
  });
});

describe('what the router reports', () => {
  test('states(): name, circuit, consecutive failures, last error and its time, a moving latency of the last 20 answers', async () => {
    const { router, clock, a, b } = setup();
    expect(router.states()).toEqual([
      { name: 'a', circuit: 'closed', consecutiveFailures: 0, lastError: null, latencyMs: null },
      { name: 'b', circuit: 'closed', consecutiveFailures: 0, lastError: null, latencyMs: null },
    ]);
    a.latencyMs = 1000;
    for (let i = 0; i < 20; i++) await router.stamp(`<${i}/>`, OPTIONS, []);
    a.latencyMs = 100;
    a.script.push(PROVIDER);
    b.latencyMs = 30;
    const failedAt = clock.ms + 100;
    for (let i = 0; i < 10; i++) await router.stamp(`<more${i}/>`, OPTIONS, []);
    expect(router.states()).toEqual([
      // The last 20: ten at 1000 ms, ten at 100 ms.
      { name: 'a', circuit: 'closed', consecutiveFailures: 0, lastError: { message: PROVIDER.message, at: iso(failedAt) }, latencyMs: 550 },
      { name: 'b', circuit: 'closed', consecutiveFailures: 0, lastError: null, latencyMs: 30 },
    ]);
  });

  test('healthy(): while at least one circuit is closed, or no PAC is configured', async () => {
    const { router, a, b } = setup(['a', 'b'], 1);
    a.script.push(PROVIDER);
    await router.stamp('<x/>', OPTIONS, []);
    expect(router.healthy()).toBe(true);
    b.script.push(PROVIDER);
    await router.stamp('<y/>', OPTIONS, []);
    expect(router.healthy()).toBe(false);
    const none = createPacRouter([], { ambiguousWindowMs: WINDOW, breaker: { failureThreshold: 1, openMs: 1 }, now: () => new Date() });
    expect(none.healthy()).toBe(true);
  });

  test('pac(name): the adapter that stamped, for cancellation, acuse and status; undefined for an unknown name', () => {
    const { router, b } = setup();
    expect(router.pac('b')).toBe(b.adapter);
    expect(router.pac('finkok')).toBeUndefined();
  });

  test('two PACs with one name are refused', () => {
    const clock = { ms: T0 };
    expect(() =>
      createPacRouter([fakePac('sw', clock).adapter, fakePac('sw', clock).adapter], {
        ambiguousWindowMs: WINDOW,
        breaker: { failureThreshold: 1, openMs: 1 },
        now: () => new Date(),
      }),
    ).toThrow('two PACs share a name: sw, sw');
  });
});

describe('an attempt recorded as sent before it left', () => {
  test('the hook records sent before each call and each answer as it comes; a hook that fails sends nothing', async () => {
    const { router, a, calls } = setup();
    a.script.push(PROVIDER);
    const seen: [string, string, number[]][] = [];
    await router.stamp('<x/>', OPTIONS, [], async (attempt) => {
      seen.push([attempt.pac, attempt.outcome, calls()]);
    });
    expect(seen).toEqual([
      ['a', 'sent', [0, 0]],
      ['a', 'provider', [1, 0]],
      ['b', 'sent', [1, 0]],
      ['b', 'stamped', [1, 1]],
    ]);
    await expect(router.stamp('<x/>', OPTIONS, [], () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    expect(calls()).toEqual([1, 1]);
  });

  test('sent without an answer (a process that died, an answer on its way) keeps the document with that PAC for the window', async () => {
    const { router, clock, a, calls } = setup();
    const history: StampAttempt[] = [{ pac: 'a', outcome: 'sent', at: iso(T0) }];
    clock.ms = T0 + WINDOW - 1;
    a.script.push(PROVIDER);
    const routed = await router.stamp('<x/>', OPTIONS, history);
    expect(routed.pac).toBe('a'); // not b, although a is down now
    expect(calls()).toEqual([1, 0]);
    // The window runs from when its answer can no longer come (a request's 15 s), not from when it left.
    clock.ms = T0 + WINDOW;
    a.script.push(PROVIDER);
    expect((await router.stamp('<x/>', OPTIONS, history)).pac).toBe('a');
    clock.ms = T0 + 15_000 + WINDOW;
    expect((await router.stamp('<x/>', OPTIONS, history)).pac).toBe('b');
  });

  test('sent then answered "provider" (nothing stamped): free to go to the next PAC at once', async () => {
    const { router, a, calls } = setup();
    a.script.push(PROVIDER);
    const history: StampAttempt[] = [
      { pac: 'a', outcome: 'sent', at: iso(T0) },
      { pac: 'a', outcome: 'provider', at: iso(T0) },
    ];
    const routed = await router.stamp('<x/>', OPTIONS, history);
    expect(routed.pac).toBe('b');
    expect(calls()).toEqual([1, 1]);
  });

  test('every PAC released: the one asked most recently first (it may hold a stamp it never answered), then the others', async () => {
    const { router, clock, calls } = setup();
    const history: StampAttempt[] = [
      { pac: 'a', outcome: 'ambiguous', at: iso(T0) },
      { pac: 'b', outcome: 'sent', at: iso(T0 + WINDOW) },
    ];
    clock.ms = T0 + 2 * WINDOW + 1;
    expect((await router.stamp('<x/>', OPTIONS, history)).pac).toBe('b');
    expect(calls()).toEqual([0, 1]);
  });

  test('a released PAC that cannot be asked without stamping (SW) goes before the PACs not tried yet: a second stamp elsewhere could never be found', async () => {
    const { router, clock, calls } = setup(['a', 'b'], 3, ['b']);
    const history: StampAttempt[] = [
      { pac: 'a', outcome: 'provider', at: iso(T0) },
      { pac: 'b', outcome: 'sent', at: iso(T0) },
    ];
    clock.ms = T0 + WINDOW + 1;
    expect((await router.stamp('<x/>', OPTIONS, history)).pac).toBe('b');
    expect(calls()).toEqual([0, 1]);
  });
});
