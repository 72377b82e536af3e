/**
 * Regenerates the client's contract from the app itself: builds the OpenAPI document in process (no server, no
 * network), writes the snapshot `openapi.json` and `src/schema.d.ts` (openapi-typescript). `npm run client:generate`.
 * The tests in tests/clients use the same functions to check that both committed files are current.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
// openapi-typescript 7 needs TypeScript 5's compiler API; both live in this package's own node_modules (the root
// project is on the Go-native TypeScript 7, which has no such API).
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import ts from 'typescript';
import { createTestApp } from '../../tests/helpers.ts';

export const SNAPSHOT_PATH = join(import.meta.dir, 'openapi.json');
export const SCHEMA_PATH = join(import.meta.dir, 'src', 'schema.d.ts');

type Json = Record<string, any>;

/** The document GET /api/v1/openapi.json serves, from an in-process app on an in-memory database. */
export async function buildOpenApiDocument(): Promise<Json> {
  const { app } = await createTestApp();
  const res = await app.request('/api/v1/openapi.json');
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
  return (await res.json()) as Json;
}

/** The snapshot's text: pretty-printed, keys in the order the app produces them. */
export const serializeDocument = (doc: Json) => `${JSON.stringify(doc, null, 2)}\n`;

const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));

/** The TypeScript declarations of `doc`, exactly as committed in src/schema.d.ts. */
export async function renderSchema(doc: Json, { silent = false } = {}): Promise<string> {
  const ast = await openapiTS(structuredClone(doc) as any, {
    silent,
    // A default belongs to a request field the caller may omit (ApiKeyCreate.environment), not a required one.
    defaultNonNullable: false,
    // Files (CSD .cer/.key, logo) and binary downloads are Blobs, not strings: a FormData part or `parseAs: 'blob'`.
    transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
  });
  return `${COMMENT_HEADER.replace(' */', ' * Source: clients/typescript/openapi.json; regenerate with `npm run client:generate`.\n */')}${astToString(ast)}`;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** JSON with sorted keys, so that a mere reordering does not count as a change. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
const differs = (a: unknown, b: unknown) => canonical(a) !== canonical(b);

/**
 * A short, human list of what differs between two documents: operations added, removed or changed (and in which
 * part), component schemas, and any other top-level field.
 */
export function describeContractChanges(before: Json, after: Json): string[] {
  const changes: string[] = [];
  const paths = new Set([...Object.keys(before.paths ?? {}), ...Object.keys(after.paths ?? {})]);
  for (const path of paths) {
    const a: Json = before.paths?.[path] ?? {};
    const b: Json = after.paths?.[path] ?? {};
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const name = METHODS.includes(key) ? `${key.toUpperCase()} ${path}` : `${path} (${key})`;
      const id = b[key]?.operationId ?? a[key]?.operationId;
      const label = id ? `${name} [${id}]` : name;
      if (!(key in a)) changes.push(`+ ${label}: added`);
      else if (!(key in b)) changes.push(`- ${label}: removed`);
      else if (differs(a[key], b[key])) {
        const parts = [...new Set([...Object.keys(a[key] ?? {}), ...Object.keys(b[key] ?? {})])].filter((k) => differs(a[key]?.[k], b[key]?.[k]));
        const detail = parts.map((k) =>
          k === 'responses'
            ? `responses ${[...new Set([...Object.keys(a[key].responses ?? {}), ...Object.keys(b[key].responses ?? {})])].filter((code) => differs(a[key].responses?.[code], b[key].responses?.[code])).join(', ')}`
            : k,
        );
        changes.push(`~ ${label}: ${detail.join('; ') || 'changed'}`);
      }
    }
  }
  for (const kind of new Set([...Object.keys(before.components ?? {}), ...Object.keys(after.components ?? {})])) {
    const a: Json = before.components?.[kind] ?? {};
    const b: Json = after.components?.[kind] ?? {};
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(name in a)) changes.push(`+ components.${kind}.${name}: added`);
      else if (!(name in b)) changes.push(`- components.${kind}.${name}: removed`);
      else if (differs(a[name], b[name])) changes.push(`~ components.${kind}.${name}: changed`);
    }
  }
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key !== 'paths' && key !== 'components' && differs(before[key], after[key])) changes.push(`~ ${key}: changed`);
  }
  return changes;
}

if (import.meta.main) {
  const doc = await buildOpenApiDocument();
  let previous: Json | undefined;
  try {
    previous = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8'));
  } catch {
    // the first snapshot
  }
  writeFileSync(SNAPSHOT_PATH, serializeDocument(doc));
  writeFileSync(SCHEMA_PATH, await renderSchema(doc));
  const changes = previous ? describeContractChanges(previous, doc) : ['first snapshot'];
  console.log(`wrote ${relative(process.cwd(), SNAPSHOT_PATH)} and ${relative(process.cwd(), SCHEMA_PATH)}`);
  console.log(changes.length ? `contract changes (review them in the diff):\n  ${changes.join('\n  ')}` : 'no contract change');
  // The package is used built (dist/, committed so that installing it builds nothing): rebuild it with the new types.
  const build = Bun.spawnSync(['npm', 'run', 'build'], { cwd: import.meta.dir, stdout: 'inherit', stderr: 'inherit' });
  if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
}
