import { expect, test } from 'bun:test';
import { createLogger } from '../../src/lib/logger.ts';
import { limitStorageLogs, logStorageFailure, STORAGE_LOG_INTERVAL_MS } from '../../src/lib/storage-log.ts';

/** Issue 35: a full disk is one line per kind per interval, whatever fails (SQLite, PostgreSQL, a file write). */
test('one line per kind per interval, each kind counted apart; other errors are not its business', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', (line) => void lines.push(JSON.parse(line)));
  let now = 0;
  limitStorageLogs(logger, () => now);
  const failure = (code: string) => Object.assign(new Error(code), { code });
  const wrapped = (code: string) => new Error('Failed query: insert into …', { cause: failure(code) });

  for (const code of ['SQLITE_FULL', '53100', 'ENOSPC']) for (let i = 0; i < 10; i++) expect(logStorageFailure(logger, wrapped(code))).toBe(true);
  expect(logStorageFailure(logger, failure('ECONNREFUSED'))).toBe(true);
  expect(logStorageFailure(logger, failure('SQLITE_CONSTRAINT_UNIQUE'))).toBe(false);
  expect(logStorageFailure(logger, new Error('a bug'))).toBe(false);
  expect(lines.map((l) => [l.kind, l.code, l.err, l.suppressed])).toEqual([
    ['full', 'SQLITE_FULL', 'SQLITE_FULL', 0],
    ['unreachable', 'ECONNREFUSED', 'ECONNREFUSED', 0],
  ]);

  now += STORAGE_LOG_INTERVAL_MS;
  logStorageFailure(logger, failure('ENOSPC'));
  expect(lines.at(-1)).toEqual(expect.objectContaining({ kind: 'full', code: 'ENOSPC', suppressed: 29 }));
});
