import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import {
  buildOpenApiDocument,
  describeContractChanges,
  renderSchema,
  SCHEMA_PATH,
  serializeDocument,
  SNAPSHOT_PATH,
} from '../../../clients/typescript/generate.ts';

const REGENERATE = 'Run `npm run client:generate` and review the diff of clients/typescript/openapi.json and src/schema.d.ts';

describe('the OpenAPI contract', () => {
  test('the served document equals the committed snapshot (clients/typescript/openapi.json)', async () => {
    const served = await buildOpenApiDocument();
    const committed = readFileSync(SNAPSHOT_PATH, 'utf8');
    if (serializeDocument(served) === committed) return;

    const changes = describeContractChanges(JSON.parse(committed), served);
    const shown = changes.slice(0, 25);
    if (changes.length > shown.length) shown.push(`… and ${changes.length - shown.length} more`);
    throw new Error(
      `The OpenAPI document changed (an accidental change of the public contract?). ${REGENERATE}:\n  ` +
        (shown.length ? shown.join('\n  ') : 'only key order or formatting differs'),
    );
  });

  test('src/schema.d.ts is what openapi-typescript generates from the served document', async () => {
    const generated = await renderSchema(await buildOpenApiDocument(), { silent: true });
    const committed = readFileSync(SCHEMA_PATH, 'utf8');
    if (generated !== committed) throw new Error(`clients/typescript/src/schema.d.ts is stale. ${REGENERATE}.`);
  });

  test('the change summary names what changed', () => {
    const op = (operationId: string) => ({ operationId, summary: 's', responses: { 200: { description: 'ok' }, 404: { description: 'no' } } });
    const before = {
      openapi: '3.1.0',
      info: { title: 'API', version: '1' },
      paths: { '/a': { get: op('getA'), post: op('createA') }, '/b': { get: op('getB') } },
      components: { schemas: { A: { type: 'object' }, B: { type: 'string' } } },
    };
    const after = structuredClone(before) as any;
    after.paths['/a'].post.summary = 'changed';
    after.paths['/a'].post.responses[404].description = 'changed';
    delete after.paths['/b'];
    after.paths['/c'] = { get: op('getC') };
    after.components.schemas.A.type = 'array';
    delete after.components.schemas.B;
    after.info.version = '2';
    expect(describeContractChanges(before, after)).toEqual([
      '~ POST /a [createA]: summary; responses 404',
      '- GET /b [getB]: removed',
      '+ GET /c [getC]: added',
      '~ components.schemas.A: changed',
      '- components.schemas.B: removed',
      '~ info: changed',
    ]);
    // a reordering alone is no contract change
    const reordered = { ...before, paths: { '/b': before.paths['/b'], '/a': { post: before.paths['/a'].post, get: before.paths['/a'].get } } };
    expect(describeContractChanges(before, reordered)).toEqual([]);
  });
});
