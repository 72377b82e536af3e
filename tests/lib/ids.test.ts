import { describe, expect, test } from 'bun:test';
import { ID_PATTERN, newId } from '../../src/lib/ids.ts';

describe('ids', () => {
  test('prefixed, 26 chars, sortable by time', () => {
    const a = newId('usr', 1_700_000_000_000);
    const b = newId('usr', 1_700_000_000_001);
    expect(a).toMatch(ID_PATTERN);
    expect(a < b).toBe(true);
    expect(newId('ak')).toStartWith('ak_');
  });
});

describe('ids are monotonic', () => {
  test('many ids in the same millisecond sort in creation order', () => {
    const ids = Array.from({ length: 1000 }, () => newId('x', 1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
  });
});
