import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Prefixed, time-sortable public id: `<prefix>_` + 10 chars of millisecond time + 16 random chars
 * (Crockford base32, like a ULID). Sorting ids sorts by creation time, which keyset pagination relies on.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32];
  return `${prefix}_${time}${rand}`;
}

export const ID_PATTERN = /^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$/;
