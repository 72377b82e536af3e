import { describe, expect, test } from 'bun:test';
import { createScheduler } from '../../src/jobs/scheduler.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { until } from '../helpers.ts';

describe('scheduler', () => {
  test('start runs the daily tasks once and ticks; a failing task does not stop the others or the heartbeat', async () => {
    const ran: string[] = [];
    const lines: string[] = [];
    const s = createScheduler({
      logger: createLogger('error', (l) => lines.push(l)),
      tasks: [
        {
          name: 'boom',
          run: () => {
            throw new Error('boom');
          },
        },
        { name: 'tick', run: () => ran.push('tick') },
      ],
      daily: [{ name: 'daily', run: () => ran.push('daily') }],
    });
    expect(s.lastTickAt()).toBeNull();
    const started = Date.now();
    s.start();
    // The first tick and the daily run are asynchronous: wait for them, not a fixed 20 ms a loaded machine misses.
    await until(() => ran.length >= 2 && s.lastTickAt() !== null, 'the first tick and the daily run');
    await s.stop();
    expect(ran).toEqual(['tick', 'daily']);
    expect(s.lastTickAt()).toBeGreaterThanOrEqual(started);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', task: 'boom' });
  });

  test('stop waits for the tasks already running and starts none after them (a daily run mid-way stops there)', async () => {
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const s = createScheduler({
      logger: createLogger('silent'),
      daily: [
        {
          name: 'first',
          run: async () => {
            ran.push('first started');
            await held;
            ran.push('first ended');
          },
        },
        { name: 'second', run: () => ran.push('second') },
      ],
    });
    s.start();
    await until(() => ran.includes('first started'), 'the daily run to start');
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    await Bun.sleep(20);
    expect(stopped).toBe(false); // the task still runs
    release();
    await stopping;
    await Bun.sleep(20);
    expect(ran).toEqual(['first started', 'first ended']); // no task after stop
  });
});
