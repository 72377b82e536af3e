import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dir, '../..');
const SRC = join(ROOT, 'src');

/** Every TypeScript file under src/, relative to the repository. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(ROOT, join(dir, e.name))] : [],
  );

/**
 * Ways of asking which engine or deployment shape this process runs on. Only src/topology (the Coordination port's
 * implementations and the one place that chooses among them) and src/db (the SQL engine itself) may ask; a module's
 * `queries.ts` may pick its statements per engine (forDialect), which is SQL in the engine's own words.
 */
const FORBIDDEN: { what: string; pattern: RegExp; allowedIn?: (file: string) => boolean }[] = [
  { what: 'the configured engine', pattern: /database\.engine/ },
  { what: "a handle's engine", pattern: /\b(dialectOf|engineOf|sqliteOf|postgresOf)\(/ },
  { what: 'a comparison with an engine', pattern: /(dialect|engine)\s*[!=]==|[!=]==\s*'(sqlite|postgres)'/ },
  { what: 'statements per engine outside a queries.ts', pattern: /\bforDialect\(/, allowedIn: (file) => file.endsWith('/queries.ts') },
  { what: 'the supervisor and its workers', pattern: /\b(workerNumber|supervisorLink|spawnWorkers|supervising|CFDI_WORKER|config\.workers)\b/ },
  { what: "a deployment shape's implementation", pattern: /from '[./]*\/?topology\/(single|postgres|supervised|cluster)\.ts'/ },
];

const exempt = (file: string) => file.startsWith('src/topology/') || file.startsWith('src/db/');

/** Where a file asks, as `file:line what`. */
function askings(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      FORBIDDEN.filter(({ pattern, allowedIn }) => pattern.test(line) && !allowedIn?.(file)).map(({ what }) => `${file}:${i + 1} asks ${what}`),
    );
}

describe('one Coordination port (issue 37, acceptance 4)', () => {
  test('outside src/topology and src/db, no module asks which engine or deployment shape it runs on', () => {
    const files = sources(SRC).filter((file) => !exempt(file));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => askings(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  test('the check finds each way of asking', () => {
    const found = askings(
      'src/example.ts',
      [
        "const onSqlite = config.database.engine === 'sqlite';",
        "if (dialectOf(db) === 'postgres') {}",
        "if (engine.dialect === 'sqlite') {}",
        'forDialect(db, { sqlite, postgres });',
        'const worker = workerNumber();',
        "import { singleProcess } from './topology/single.ts';",
        "import { chooseTopology } from './topology/index.ts';",
      ].join('\n'),
    );
    expect(found.map((f) => f.split(' asks ')[0])).toEqual([
      'src/example.ts:1',
      'src/example.ts:1',
      'src/example.ts:2',
      'src/example.ts:2',
      'src/example.ts:3',
      'src/example.ts:4',
      'src/example.ts:5',
      'src/example.ts:6',
    ]);
    expect(askings('src/jobs/queries.ts', 'forDialect(db, { sqlite, postgres });')).toEqual([]);
  });

  test('src/index.ts chooses the shape once, through chooseTopology', () => {
    const index = readFileSync(join(SRC, 'index.ts'), 'utf8');
    expect(index.match(/chooseTopology\(/g)).toHaveLength(1);
  });
});
