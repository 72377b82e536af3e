import { describe, expect, test } from 'bun:test';
import { createScheduler } from '../../src/jobs/scheduler.ts';
import { createLogger } from '../../src/lib/logger.ts';

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
    s.start();
    // The first tick and the daily run are asynchronous: wait for them (bounded), not a fixed 20 ms a loaded machine misses.
    for (let waited = 0; (ran.length < 2 || s.lastTickAt() === null) && waited < 2000; waited += 10) await Bun.sleep(10);
    s.stop();
    expect(ran).toEqual(['tick', 'daily']);
    expect(s.lastTickAt()).toBeGreaterThan(Date.now() - 1000);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', task: 'boom' });
  });
});
