import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { startServer, stopServer } from './server.ts';

/**
 * README.md's walk-through (issue 18, item 8), run as a user pastes it: the block after the walk-through marker,
 * with bash -euo pipefail, from a folder that holds the repository's tests/ (where its CSD path points), against a
 * real server on an empty DATA_DIR. It must end with the stamped XML and PDF on disk, so the README cannot rot.
 */
const REPO = resolve(import.meta.dir, '..', '..');
const MARKER = '<!-- walk-through: tests/process/readme.test.ts runs the next block against a real server -->';
const work = mkdtempSync(join(tmpdir(), 'cfdi-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function walkThrough(readme: string): string {
  const at = readme.indexOf(MARKER);
  if (at < 0 || readme.indexOf(MARKER, at + 1) >= 0) throw new Error('README.md must hold the walk-through marker exactly once');
  const block = readme.slice(at + MARKER.length).match(/^\s*```sh\n([\s\S]*?)\n```/);
  if (!block) throw new Error('the walk-through marker must be followed by a ```sh block');
  return block[1]!;
}

const missing = ['curl', 'jq', 'bash'].filter((tool) => !Bun.which(tool));
if (missing.length) console.warn(`README walk-through test skipped: ${missing.join(' and ')} not installed`);

describe('README.md', () => {
  test.skipIf(missing.length > 0)(
    'the walk-through runs as pasted and leaves the stamped XML and its PDF',
    async () => {
      const script = walkThrough(readFileSync(join(REPO, 'README.md'), 'utf8'));
      const cwd = join(work, 'user');
      const dataDir = join(work, 'data');
      rmSync(cwd, { recursive: true, force: true });
      Bun.spawnSync(['mkdir', '-p', cwd]);
      symlinkSync(join(REPO, 'tests'), join(cwd, 'tests'));
      const server = await startServer(dataDir);
      try {
        const run = Bun.spawn(['bash', '-euo', 'pipefail', '-c', script], { cwd, env: { ...process.env, API: server.base }, stdout: 'pipe', stderr: 'pipe' });
        const [code, out, err] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
        expect({ code, err }).toEqual({ code: 0, err: '' });
        const uuid = out.match(/saved ([0-9A-F-]{36})\.xml/)?.[1];
        expect(uuid).toBeDefined();

        const xml = readFileSync(join(cwd, `${uuid}.xml`), 'utf8');
        const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
        expect(doc['cfdi:Comprobante']).toMatchObject({ Version: '4.0', Total: '1160.00' });
        expect(doc['cfdi:Comprobante']['cfdi:Complemento']['tfd:TimbreFiscalDigital'].UUID).toBe(uuid!);
        const pdf = readFileSync(join(cwd, `${uuid}.pdf`));
        expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect(pdf.length).toBeGreaterThan(10_000);
      } finally {
        await stopServer(server.proc);
      }
    },
    60_000,
  );

  test('the walk-through marker is found once, before its block', () => {
    expect(walkThrough(`x\n${MARKER}\n\`\`\`sh\necho hi\n\`\`\`\n`)).toBe('echo hi');
    expect(() => walkThrough('no marker')).toThrow('marker');
  });
});
