import { describe, expect, test } from 'bun:test';
import { createScheduler } from '../../src/jobs/scheduler.ts';
import { createLogger } from '../../src/lib/logger.ts';

describe('scheduler', () => {
  test('start runs the daily tasks once and ticks; a failing task does not stop the others or the heartbeat', async () => {
    const ran: string[] = [];
    const lines: string[] = [];
    const s = createScheduler({
      logger: createLogger('error', (l) => lines.push(l)),
      tasks: [{ name: 'boom', run: () => { throw new Error('boom'); } }, { name: 'tick', run: () => ran.push('tick') }],
      daily: [{ name: 'daily', run: () => ran.push('daily') }],
    });
    expect(s.lastTickAt()).toBeNull();
    s.start();
    await Bun.sleep(20);
    s.stop();
    expect(ran).toEqual(['tick', 'daily']);
    expect(s.lastTickAt()).toBeGreaterThan(Date.now() - 1000);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', task: 'boom' });
  });
});
