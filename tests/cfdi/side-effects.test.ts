import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';

/**
 * Importing the engine changes nothing outside it: pdf-lib's compressor (pako.deflate) is replaced only when an entry
 * point says so (src/index.ts, the PDF worker). Checked in a fresh process, as this one may have called it already.
 */
const ROOT = resolve(import.meta.dir, '../..');
const engineFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? engineFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

function runScript(script: string): string {
  const run = Bun.spawnSync([process.execPath, '-e', script], { cwd: ROOT, stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return run.stdout.toString().trim();
}

describe('engine side effects', () => {
  test('importing every module of src/cfdi leaves pako.deflate as pako wrote it', () => {
    // A thread's entry point (xmllint-worker.ts) is made to be loaded in its thread only: it listens on its port.
    const imports = engineFiles(join(ROOT, 'src/cfdi'))
      .filter((f) => !f.endsWith('-worker.ts'))
      .map((f) => `await import('./${relative(ROOT, f)}');`)
      .join('\n');
    const out = runScript(
      `import pako from 'pako';\nconst original = pako.deflate;\n${imports}\nconsole.log(pako.deflate === original ? 'untouched' : 'replaced');`,
    );
    expect(out).toBe('untouched');
  });

  test('useNativeDeflate() replaces it with the runtime zlib, writing the same format', async () => {
    const out = runScript(
      "import pako from 'pako';\nconst original = pako.deflate;\nconst { useNativeDeflate } = await import('./src/cfdi/pdf.ts');\nuseNativeDeflate();\n" +
        "const bytes = pako.deflate(new TextEncoder().encode('CFDI '.repeat(100)));\nconsole.log(pako.deflate === original ? 'untouched' : Buffer.from(bytes).toString('base64'));",
    );
    expect(out).not.toBe('untouched');
    expect(inflateSync(Buffer.from(out, 'base64')).toString()).toBe('CFDI '.repeat(100));
  });
});
