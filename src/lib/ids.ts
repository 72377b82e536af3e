import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * Prefixed, time-sortable public id: `<prefix>_` + 10 chars of millisecond time + 16 random chars (Crockford
 * base32, a ULID). Within one millisecond the random part is incremented instead of redrawn (monotonic ULID), so
 * sorting ids sorts by creation order, which keyset pagination relies on.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let t = Math.max(now, lastTime);
  const sameMs = t === lastTime;
  lastTime = t;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (sameMs) {
    let i = 15;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i >= 0) lastRandom[i]!++;
  } else {
    const bytes = randomBytes(16);
    // Top bit of the first digit left clear so increments within a millisecond cannot overflow.
    lastRandom = Array.from(bytes, (b, i) => (i === 0 ? b % 16 : b % 32));
  }
  return `${prefix}_${time}${lastRandom.map((d) => CROCKFORD[d]).join('')}`;
}

export const ID_PATTERN = /^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$/;
