import { describe, expect, test } from 'bun:test';
import { wallClock, zonedToUtc } from '../../src/cfdi/time.ts';

/**
 * What Intl says the wall clock reads, by another road than src/cfdi/time.ts (Swedish dates are ISO-shaped, 24 h):
 * the reference wallClock's cached offsets must agree with.
 */
const intlWallClock = (instant: Date, timeZone: string): string => instant.toLocaleString('sv-SE', { timeZone }).replace(' ', 'T');

const ZONES = [
  'America/Mexico_City',
  'America/Matamoros',
  'America/Mazatlan',
  'America/Ciudad_Juarez',
  'America/Hermosillo',
  'America/Tijuana',
  'America/Cancun',
];

describe('wallClock', () => {
  test("Intl's answer every 7 minutes 31 seconds across the 2026 changes of the border zones (US rules) and the 2022 end of Mexico's DST", () => {
    const stretches = ['2026-03-08T06:00:00Z', '2026-11-01T05:00:00Z', '2022-10-30T05:00:00Z', '2022-04-03T06:00:00Z'];
    let checked = 0;
    for (const zone of ZONES) {
      for (const start of stretches) {
        for (let ms = Date.parse(start) - 6 * 3600_000; ms < Date.parse(start) + 6 * 3600_000; ms += 451_000) {
          const instant = new Date(ms + (ms % 997)); // milliseconds that are not whole seconds
          expect(`${zone} ${wallClock(instant, zone)}`).toBe(`${zone} ${intlWallClock(instant, zone)}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(2000);
  });

  test('the second before and the second of a change (Tijuana, 2026-03-08 02:00 local becomes 03:00)', () => {
    expect(wallClock(new Date('2026-03-08T09:59:59.999Z'), 'America/Tijuana')).toBe('2026-03-08T01:59:59');
    expect(wallClock(new Date('2026-03-08T10:00:00.000Z'), 'America/Tijuana')).toBe('2026-03-08T03:00:00');
  });

  test('zonedToUtc inverts it', () => {
    for (const zone of ZONES) {
      const instant = new Date('2026-11-24T18:42:07.000Z');
      expect(zonedToUtc(wallClock(instant, zone), zone).toISOString()).toBe(instant.toISOString());
    }
  });
});
