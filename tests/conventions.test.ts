import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What the type checker and the linter cannot say: SQL with `?` placeholders lives only in a module's queries.ts
 * (or queries/) and in src/db, and no code dodges the types with `tx: object` or `as unknown as`.
 */
const ROOT = join(import.meta.dir, '..');

const sourceFiles = (): string[] =>
  readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));

const mayHoldSql = (file: string) => file.startsWith('src/db/') || /(^|\/)queries(\.ts$|\/)/.test(file);

const SQL_STATEMENT =
  /^\s*\(?\s*(select|insert|update|delete|with|replace|pragma)\b|\b(insert\s+into|delete\s+from|update\s+\w+\s+set|select\s[\s\S]*\sfrom)\b/i;

/**
 * Every string and template literal of a TypeScript source, with its line (a template's parts joined by `${}`).
 * A small scanner: comments skipped, template expressions scanned as code, a `/` after an operator read as a regex.
 */
function literals(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let i = 0;
  const lineAt = (at: number) => text.slice(0, at).split('\n').length;
  const quoted = (quote: string) => {
    const start = i++;
    let value = '';
    while (i < text.length && text[i] !== quote) value += text[i] === '\\' ? text[(i += 2) - 1] : text[i++];
    i++;
    found.push({ line: lineAt(start), text: value });
  };
  const template = () => {
    const start = i++;
    let value = '';
    while (i < text.length && text[i] !== '`') {
      if (text[i] === '\\') value += text[(i += 2) - 1];
      else if (text[i] === '$' && text[i + 1] === '{') {
        i += 2;
        code('}');
        i++;
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder for an expression, literally
        value += '${}';
      } else value += text[i++];
    }
    i++;
    found.push({ line: lineAt(start), text: value });
  };
  const regex = () => {
    let inClass = false;
    for (i++; i < text.length && (inClass || text[i] !== '/'); i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '[') inClass = true;
      else if (text[i] === ']') inClass = false;
    }
    i++;
  };
  // Code up to an unmatched `until` (the end of a template expression) or the end of the text.
  const code = (until?: string) => {
    let depth = 0;
    let previous = '';
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === until && depth === 0) return;
      if (ch === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
      else if (ch === '/' && text[i + 1] === '*') i = text.indexOf('*/', i) + 2;
      else if (ch === "'" || ch === '"') quoted(ch);
      else if (ch === '`') template();
      else if (ch === '/' && (previous === '' || '(,=:[!&|?{};+-*%<>~^'.includes(previous) || /\breturn$/.test(text.slice(Math.max(0, i - 7), i).trimEnd())))
        regex();
      else {
        if (ch === '{') depth++;
        if (ch === '}') depth--;
        i++;
      }
      if (!/\s/.test(ch)) previous = text[i - 1] === ch ? ch : 'x';
    }
  };
  code();
  return found;
}

/** The `?`-placeholder SQL strings, type dodges and untyped transactions of one file's text. */
function violations(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/\btx\??\s*:\s*object\b/.test(line)) found.push(`${file}:${i + 1}: tx: object`);
    if (/\bas\s+unknown\s+as\b/.test(line)) found.push(`${file}:${i + 1}: as unknown as`);
  });
  if (!mayHoldSql(file)) {
    for (const l of literals(text))
      if (SQL_STATEMENT.test(l.text) && l.text.includes('?')) found.push(`${file}:${l.line}: SQL with ? placeholders outside queries.ts`);
  }
  return found;
}

describe('conventions the compiler cannot check', () => {
  test('the check finds each kind of violation', () => {
    const sample = [
      "const a = statement(db, 'select id from cfdis where uuid = ?');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with a template in it
      'const b = `update jobs set status = ?\n where id = ${id}`;',
      'function f(tx: object) {}',
      'const c = x as unknown as number;',
      "const fine = 'Is this a question?';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with a template in it
      'const fine2 = sql`select id from cfdis where uuid = ${uuid}`;',
    ].join('\n');
    expect(violations('src/invoices/x.ts', sample)).toEqual([
      'src/invoices/x.ts:4: tx: object',
      'src/invoices/x.ts:5: as unknown as',
      'src/invoices/x.ts:1: SQL with ? placeholders outside queries.ts',
      'src/invoices/x.ts:2: SQL with ? placeholders outside queries.ts',
    ]);
    expect(violations('src/jobs/queries.ts', sample)).toEqual(['src/jobs/queries.ts:4: tx: object', 'src/jobs/queries.ts:5: as unknown as']);
  });

  test('src/ holds no ?-placeholder SQL outside queries.ts and src/db, no tx: object, no as unknown as', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap((file) => violations(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });
});

/**
 * A run shares the machine's PostgreSQL with other runs and programs (README, Tests): nothing in tests/ or .ci stops,
 * restarts or reconfigures a server it did not start. The fault test stops only its own
 * (tests/process/postgres-cluster.ts).
 */
describe('the suite leaves the shared PostgreSQL server alone', () => {
  test('no pg_ctlcluster, systemctl, ALTER SYSTEM, pg_terminate_backend or pg_reload_conf in tests/ or .ci/run', () => {
    const SERVER_WIDE = /pg_ctlcluster|systemctl|alter\s+system|pg_terminate_backend|pg_reload_conf/i;
    const files = readdirSync(join(ROOT, 'tests'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => relative(ROOT, join(e.parentPath, e.name)))
      .filter((file) => file !== 'tests/conventions.test.ts');
    const found = [...files, '.ci/run'].filter((file) => SERVER_WIDE.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});

describe('every create survives a crash with its Idempotency-Key', () => {
  // The committed document is the served one (tests/clients checks it); a POST answering 201 or 202 makes something.
  const document = JSON.parse(readFileSync(join(ROOT, 'clients/typescript/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  const creates = Object.entries(document.paths)
    .filter(([, operations]) => operations.post && ('201' in operations.post.responses || '202' in operations.post.responses))
    .map(([path]) => `POST ${path}`)
    .sort();

  test('each POST that creates binds to the claim: it is in the SIGKILL test (tests/process/creates.ts) or says why not', async () => {
    const { CREATES, NOT_RESUMABLE } = await import('./process/creates.ts');
    const covered = [...CREATES.map((c) => c.route), ...Object.keys(NOT_RESUMABLE)].sort();
    expect(creates.length).toBeGreaterThan(10);
    // A new create fails here until it binds (service.ts: `bindIdempotency` in its transaction; routes.ts: answer `resumed`) and is listed.
    expect(covered).toEqual(creates);
  });
});
