import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, issuer, READY } from '../../helpers.ts';

/**
 * The typed client as an integrator installs it: the package ships its built JavaScript and declarations (dist/,
 * committed, so installing builds nothing), equal to a fresh build; plain Node.js imports the built JavaScript and
 * talks to a real server, and a TypeScript project with Node's own module resolution type-checks against the built
 * declarations, responses narrowed by status.
 */
const PACKAGE = new URL('../../../clients/typescript/', import.meta.url).pathname;
const TSC = join(PACKAGE, 'node_modules/.bin/tsc');
const hasNode = Bun.which('node') !== null;

const t = await createTestApp();
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch });
const baseUrl = `http://127.0.0.1:${server.port}`;
let consumer = '';
let fresh = '';
let key = '';

beforeAll(async () => {
  // What `npm run build` writes, into a folder of its own: the committed dist/ is compared with it, not replaced.
  fresh = mkdtempSync(join(tmpdir(), 'cfdi-client-build-'));
  const build = Bun.spawnSync([TSC, '-p', 'tsconfig.build.json', '--outDir', fresh], { cwd: PACKAGE, stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${build.stdout}\n${build.stderr}`);
  writeFileSync(join(fresh, 'schema.d.ts'), readFileSync(join(PACKAGE, 'src', 'schema.d.ts')));
  // A project elsewhere on disk with the package installed as npm links a file: dependency.
  consumer = mkdtempSync(join(tmpdir(), 'cfdi-client-consumer-'));
  mkdirSync(join(consumer, 'node_modules/@cfdi-api'), { recursive: true });
  symlinkSync(PACKAGE.replace(/\/$/, ''), join(consumer, 'node_modules/@cfdi-api/client'));
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  key = (await issuer(t, READY)).key;
}, 60_000);
afterAll(() => {
  server.stop(true);
  if (consumer) rmSync(consumer, { recursive: true, force: true });
  if (fresh) rmSync(fresh, { recursive: true, force: true });
});

const INVOICE = {
  tipo: 'I',
  forma_pago: '03',
  receptor: { rfc: 'ICV060329BY0', nombre: 'INMOBILIARIA CVA', regimen_fiscal: '601', domicilio_fiscal: '33826', uso_cfdi: 'G03' },
  conceptos: [
    {
      clave_prod_serv: '84111506',
      clave_unidad: 'E48',
      descripcion: 'Servicio',
      cantidad: '1',
      valor_unitario: '1000',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
};

/** Type-checks `source` as a Node.js (NodeNext) project that depends on the package, with TypeScript 5. */
function typecheck(name: string, source: string) {
  writeFileSync(join(consumer, `${name}.ts`), source);
  writeFileSync(
    join(consumer, `tsconfig.${name}.json`),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], strict: true, noEmit: true, types: [] },
      files: [`${name}.ts`],
    }),
  );
  const run = Bun.spawnSync([TSC, '-p', `tsconfig.${name}.json`], { cwd: consumer, stdout: 'pipe', stderr: 'pipe' });
  return { code: run.exitCode, output: `${run.stdout}${run.stderr}` };
}

describe('the @cfdi-api/client package', () => {
  test('package.json points main, types and exports at the built files, and ships them', async () => {
    const pkg = await Bun.file(join(PACKAGE, 'package.json')).json();
    expect(pkg.main).toBe('./dist/index.js');
    expect(pkg.types).toBe('./dist/index.d.ts');
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(pkg.files).toContain('dist');
    for (const file of ['index.js', 'index.d.ts', 'schema.d.ts']) expect(await Bun.file(join(PACKAGE, 'dist', file)).exists()).toBe(true);
    // Nothing builds on install (a folder's prepare script would need the package's dev dependencies).
    expect(pkg.scripts.prepare).toBeUndefined();
  });

  test('the committed dist/ is what a fresh build makes (run npm run client:generate, or npm run build there, and commit it)', () => {
    const committed = readdirSync(join(PACKAGE, 'dist')).sort();
    expect(committed).toEqual(readdirSync(fresh).sort());
    for (const file of committed) {
      expect({ file, text: readFileSync(join(PACKAGE, 'dist', file), 'utf8') }).toEqual({ file, text: readFileSync(join(fresh, file), 'utf8') });
    }
  });

  test.skipIf(!Bun.which('git') || !existsSync(join(PACKAGE, '../../.git')))('dist/ is tracked by git, so a clone has it', () => {
    const listed = Bun.spawnSync(['git', 'ls-files', 'dist'], { cwd: PACKAGE, stdout: 'pipe' }).stdout.toString().trim().split('\n').sort();
    expect(listed).toEqual(['dist/index.d.ts', 'dist/index.js', 'dist/schema.d.ts']);
  });

  test.skipIf(!hasNode)(
    'plain Node.js imports the built JavaScript and issues an invoice against the running server',
    async () => {
      writeFileSync(
        join(consumer, 'issue.mjs'),
        `import { byStatus, createCfdiClient } from '@cfdi-api/client';
const client = createCfdiClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const issued = await byStatus(client).POST('/api/v1/cfdis', { body: JSON.parse(process.env.INVOICE) });
const missing = await byStatus(client).GET('/api/v1/cfdis/{id}', { params: { path: { id: 'cfdi_doesnotexist' } } });
const plain = await client.GET('/api/v1/cfdis/{id}', { params: { path: { id: issued.data.id } } });
console.log(JSON.stringify({ status: issued.status, uuid: issued.data.uuid, missing: [missing.status, missing.data.error.code], got: plain.data.uuid, runtime: process.release.name }));
`,
      );
      const run = Bun.spawn(['node', 'issue.mjs'], {
        cwd: consumer,
        env: { PATH: process.env.PATH ?? '', BASE_URL: baseUrl, API_KEY: key, INVOICE: JSON.stringify(INVOICE) },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
      expect(err).toBe('');
      expect(code).toBe(0);
      const result = JSON.parse(out);
      expect(result).toMatchObject({ status: 201, missing: [404, 'HTTP_404'], runtime: 'node' });
      expect(result.uuid).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
      expect(result.got).toBe(result.uuid);
    },
    30_000,
  );

  test('a NodeNext TypeScript project type-checks against dist/*.d.ts; results narrow by status', () => {
    const { code, output } = typecheck(
      'narrowing',
      `import { byStatus, createCfdiClient, type components } from '@cfdi-api/client';
export async function issue(body: components['schemas']['CfdiRequest']) {
  const res = await byStatus(createCfdiClient({ baseUrl: 'http://localhost:3000', apiKey: 'sk_test_x' })).POST('/api/v1/cfdis', { body });
  if (res.status === 202) {
    const queued: 'en_cola' = res.data.status;
    // @ts-expect-error a queued invoice has no emisor yet
    void res.data.emisor;
    return queued;
  }
  if (res.status === 201) {
    const rfc: string = res.data.emisor.rfc;
    // @ts-expect-error only a queued invoice has a mensaje
    void res.data.mensaje;
    return rfc;
  }
  if (res.status === 400) {
    const code: string = res.data.error.code;
    // @ts-expect-error an error envelope is not an invoice
    void res.data.uuid;
    return code;
  }
  // @ts-expect-error POST /cfdis never answers 204
  if (res.status === 204) return;
  // @ts-expect-error a path the API does not have
  void byStatus(createCfdiClient({ baseUrl: '' })).GET('/api/v1/invoices');
  return res.status;
}
`,
    );
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  // Needs the types generated from the current document (npm run client:generate): the 201 is CfdiStamped.
  test('the 201 of POST /cfdis has uuid: string (stamped), the 202 uuid: null', () => {
    const { code, output } = typecheck(
      'uuid',
      `import { byStatus, createCfdiClient } from '@cfdi-api/client';
export async function uuidOf(): Promise<string | null> {
  const res = await byStatus(createCfdiClient({ baseUrl: 'http://localhost:3000' })).POST('/api/v1/cfdis', { body: { tipo: 'I', receptor_id: 'cli_x' } });
  if (res.status === 201) {
    const uuid: string = res.data.uuid;
    return uuid;
  }
  if (res.status === 202) {
    const none: null = res.data.uuid;
    // @ts-expect-error a queued invoice's uuid is null, not a string
    const wrong: string = res.data.uuid;
    return none ?? wrong;
  }
  return null;
}
`,
    );
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 60_000);
});
