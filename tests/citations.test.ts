import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createTestApp } from './helpers.ts';

/** Comments and API text cite what a reader of this repository can open: SAT's public documents or docs/. */
const OUTSIDE = /RULES\.md|RULES §|\.\.\/shared|shared\/sat|shared\/spec/;
const ROOT = join(import.meta.dir, '..');

const filesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|md|json)$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));

describe('citations stay inside the repository', () => {
  test('no file under src/ points outside it', () => {
    const offending = filesUnder('src').flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offending).toEqual([]);
  });

  test('the served OpenAPI document points nowhere outside the repository', async () => {
    const t = await createTestApp();
    const text = JSON.stringify((await t.call('GET', '/openapi.json')).json);
    expect(text.match(new RegExp(OUTSIDE, 'g')) ?? []).toEqual([]);
  });

  test('every docs/sat-rules.md §N cited in src/ and tests/ is a section of it', () => {
    const sections = new Set([...readFileSync(join(ROOT, 'docs/sat-rules.md'), 'utf8').matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]));
    const cited = [...filesUnder('src'), ...filesUnder('tests').filter((f) => !f.startsWith('tests/fixtures/'))].flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/docs\/sat-rules\.md §(\d+(?:\.\d+)?)/g)].map((m) => `${file} §${m[1]}`),
    );
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.filter((c) => !sections.has(c.split(' §')[1]!))).toEqual([]);
  });
});
