import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The engine (src/cfdi) knows no transport and no storage: nothing it imports, directly or through another module
 * of the repository, comes from the invoice, gateway, auth or database modules, or from Hono, zod or Drizzle.
 */
const ROOT = resolve(import.meta.dir, '../..');
const ENGINE = join(ROOT, 'src/cfdi');
const FORBIDDEN_FOLDERS = ['src/invoices', 'src/gateway', 'src/auth', 'src/db', 'src/lib'];
const FORBIDDEN_PACKAGES = /^(hono|@hono\/|zod|drizzle-orm|drizzle-kit|better-sqlite3)(\/|$)/;

const IMPORT = /(?:^|[;\n])\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function specifiers(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

const engineFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? engineFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** Every problem of the import graph reached from `entries`: "<importer> imports <what>". */
function boundaryProblems(entries: string[], read: (file: string) => string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of specifiers(read(file))) {
      const where = relative(ROOT, file);
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        const rel = relative(ROOT, target);
        const folder = FORBIDDEN_FOLDERS.find((f) => rel === f || rel.startsWith(`${f}/`));
        if (folder) problems.push(`${where} imports ${rel}`);
        else if (target.endsWith('.ts')) visit(target);
      } else if (FORBIDDEN_PACKAGES.test(spec)) {
        problems.push(`${where} imports ${spec}`);
      }
    }
  };
  entries.forEach(visit);
  return problems.sort();
}

const readSource = (file: string) => readFileSync(file, 'utf8');

describe('engine boundary', () => {
  test('src/cfdi imports nothing from the invoice, gateway, auth, database or shared HTTP modules, nor Hono, zod or Drizzle', () => {
    expect(boundaryProblems(engineFiles(ENGINE), readSource)).toEqual([]);
  });

  test('the scan finds a forbidden import, direct or through another module', () => {
    const fake: Record<string, string> = {
      [join(ENGINE, 'a.ts')]: "import { x } from './b.ts';\nimport type { CfdiRequest } from '../invoices/cfdis/schemas.ts';",
      [join(ENGINE, 'b.ts')]: "export { y } from '../catalogs/c.ts';\nimport { Hono } from 'hono';",
      [join(ROOT, 'src/catalogs/c.ts')]: "import { eq } from 'drizzle-orm';\nconst m = await import('../db/client.ts');",
    };
    expect(boundaryProblems([join(ENGINE, 'a.ts')], (f) => fake[f] ?? '')).toEqual([
      'src/catalogs/c.ts imports drizzle-orm',
      'src/catalogs/c.ts imports src/db/client.ts',
      'src/cfdi/a.ts imports src/invoices/cfdis/schemas.ts',
      'src/cfdi/b.ts imports hono',
    ]);
  });

  test('SAT patterns (t_RFC, t_CURP, a folio fiscal) are written once, in src/cfdi/patterns.ts', () => {
    const shapes = { t_RFC: '[A-Z&Ñ]{3,4}', t_CURP: '[A-Z][AEIOUX]', UUID: '{8}-[a-fA-F0-9]{4}' };
    const sourceFiles = engineFiles(join(ROOT, 'src')).filter((f) => relative(ROOT, f) !== 'src/cfdi/patterns.ts');
    const copies = sourceFiles.flatMap((f) =>
      Object.entries(shapes)
        .filter(([, shape]) => readSource(f).includes(shape))
        .map(([name]) => `${name} in ${relative(ROOT, f)}`),
    );
    expect(copies).toEqual([]);
  });
});
