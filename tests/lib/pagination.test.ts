import { describe, expect, test } from 'bun:test';
import { decodeCursor, encodeCursor } from '../../src/lib/pagination.ts';

describe('cursor', () => {
  test('round-trips and rejects garbage', () => {
    expect(decodeCursor(encodeCursor('usr_x'))).toBe('usr_x');
    expect(decodeCursor(undefined)).toBeUndefined();
    expect(() => decodeCursor('!!!')).toThrow('Invalid cursor');
    expect(() => decodeCursor(Buffer.from('{"after":5}').toString('base64url'))).toThrow('Invalid cursor');
  });
});
