import { afterAll, describe, expect, test } from 'bun:test';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { smtpSink } from '../helpers.ts';
import { startServer, stopServer } from './server.ts';

/**
 * README.md's walk-through (issue 18, item 8), run as a user pastes it: the block after the walk-through marker,
 * with bash -euo pipefail, from a folder that holds the repository's tests/ (where its CSD path points), against a
 * real server on an empty DATA_DIR. It must end with the stamped XML and PDF on disk, in a folder of their own (mktemp
 * -d, under the TMPDIR it is given) and not the user's, and print each answer on a line of its own.
 */
const REPO = resolve(import.meta.dir, '..', '..');
const MARKER = '<!-- walk-through: tests/process/readme.test.ts runs the next block against a real server -->';
const CARTA_PORTE = '<!-- carta porte: tests/process/readme.test.ts runs the next block after the walk-through -->';
const COMERCIO_EXTERIOR = '<!-- comercio exterior: tests/process/readme.test.ts runs the next block after the walk-through -->';
const RECEIPTS = '<!-- receipts: tests/process/readme.test.ts runs the next block after the walk-through -->';
const RECEIVED = '<!-- received: tests/process/readme.test.ts runs the next block after the walk-through -->';
const RETENCIONES = '<!-- retenciones: tests/process/readme.test.ts runs the next block after the walk-through -->';
const CLIENT_INSTALL = '<!-- client install: tests/process/readme.test.ts runs the next block in an empty project beside the repository -->';
const EMAIL_MARKER = '<!-- email walk-through: tests/process/readme.test.ts runs the next block after the walk-through, against a server with SMTP_URL -->';
const work = mkdtempSync(join(tmpdir(), 'cfdi-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function walkThrough(readme: string, marker = MARKER): string {
  const at = readme.indexOf(marker);
  if (at < 0 || readme.indexOf(marker, at + 1) >= 0) throw new Error(`README.md must hold the marker ${marker} exactly once`);
  const block = readme.slice(at + marker.length).match(/^\s*```sh\n([\s\S]*?)\n```/);
  if (!block) throw new Error('the marker must be followed by a ```sh block');
  return block[1]!;
}

function isJsonObject(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

const missing = ['curl', 'jq', 'bash'].filter((tool) => !Bun.which(tool));
if (missing.length) console.warn(`README walk-through test skipped: ${missing.join(' and ')} not installed`);

describe('README.md', () => {
  test.skipIf(missing.length > 0)(
    'the walk-through runs as pasted and leaves the stamped XML and its PDF in a temporary folder, one answer per line; the Carta Porte curl after it stamps one; the email part sends both',
    async () => {
      const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
      const script = [MARKER, CARTA_PORTE, COMERCIO_EXTERIOR, RECEIPTS, RECEIVED, RETENCIONES, EMAIL_MARKER]
        .map((marker) => walkThrough(readme, marker))
        .join('\n');
      const sink = await smtpSink();
      const cwd = join(work, 'user');
      const dataDir = join(work, 'data');
      const temp = join(work, 'tmp');
      rmSync(cwd, { recursive: true, force: true });
      mkdirSync(cwd, { recursive: true });
      mkdirSync(temp, { recursive: true });
      symlinkSync(join(REPO, 'tests'), join(cwd, 'tests'));
      const server = await startServer(dataDir, { SMTP_URL: sink.smtp.url, SMTP_FROM: sink.smtp.from });
      try {
        const run = Bun.spawn(['bash', '-euo', 'pipefail', '-c', script], {
          cwd,
          env: { ...process.env, API: server.base, TMPDIR: temp },
          stdout: 'pipe',
          stderr: 'pipe',
        });
        const [code, out, err] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
        expect({ code, err }).toEqual({ code: 0, err: '' });
        const saved = out.match(/^saved (\S+)\/([0-9A-F-]{36})\.xml and \1\/\2\.pdf$/m);
        expect(saved).not.toBeNull();
        const [, dir, uuid] = saved!;
        expect(dirname(dir!)).toBe(temp);
        expect(readdirSync(dir!).sort()).toEqual([`${uuid}.pdf`, `${uuid}.xml`]);
        expect(readdirSync(cwd)).toEqual(['tests']);
        // Every line but the "saved" one is one whole JSON answer.
        const answers = out
          .trim()
          .split('\n')
          .filter((line) => line !== saved![0]);
        for (const line of answers) expect({ line, json: isJsonObject(line) }).toEqual({ line, json: true });
        // health, tenants/me, csds, Carta Porte, the address and Comercio Exterior, two receipts, three received, three
        // retenciones, two email lines
        expect(answers.length).toBe(16);

        const xml = readFileSync(join(dir!, `${uuid}.xml`), 'utf8');
        const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
        expect(doc['cfdi:Comprobante']).toMatchObject({ Version: '4.0', Total: '1160.00' });
        expect(doc['cfdi:Comprobante']['cfdi:Complemento']['tfd:TimbreFiscalDigital'].UUID).toBe(uuid!);
        const pdf = readFileSync(join(dir!, `${uuid}.pdf`));
        expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect(pdf.length).toBeGreaterThan(10_000);
        // The Carta Porte curl prints what the service computed for it.
        const cartaPorte = JSON.parse(answers.find((l) => l.startsWith('{"id_ccp"'))!);
        expect(cartaPorte).toEqual({
          id_ccp: expect.stringMatching(/^CCC[0-9A-F]{5}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/),
          total_dist_rec: 215.5,
          peso_bruto_total: 800,
          unidad_peso: 'KGM',
          num_total_mercancias: 1,
        });

        // The Comercio Exterior curls print the profile's address and what the service computed: 140 × 12.35 USD.
        expect(JSON.parse(answers.find((l) => l.startsWith('{"calle"'))!)).toMatchObject({ calle: 'Av. Constitución', pais: 'MEX', codigo_postal: '64000' });
        expect(JSON.parse(answers.find((l) => l.startsWith('{"clave_de_pedimento"'))!)).toEqual({
          clave_de_pedimento: 'A1',
          incoterm: 'FCA',
          tipo_cambio_usd: 17.2345,
          total_usd: 1729,
          num_mercancias: 1,
        });

        // The receipts: the customer's CFDI of the first ticket, then the day's global invoice of the second.
        const lines = out.trim().split('\n');
        const customer = JSON.parse(lines.find((l) => l.includes('"status":"vigente"'))!);
        expect(customer).toEqual({ uuid: expect.stringMatching(/^[0-9A-F-]{36}$/), status: 'vigente', total: 40 });
        const global = JSON.parse(lines.find((l) => l.includes('XAXX010101000'))!);
        expect(global).toEqual({ uuid: expect.stringMatching(/^[0-9A-F-]{36}$/), total: 40, receptor: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL' } });

        // Received invoices: the supplier's PPD invoice received, validated and owed a REP; a download from SAT requested.
        const receivedAt = answers.findIndex((l) => l.startsWith('{"result"'));
        expect(JSON.parse(answers[receivedAt]!)).toEqual({ result: 'created', uuid: expect.stringMatching(/^[0-9A-F-]{36}$/) });
        expect(JSON.parse(answers[receivedAt + 1]!)).toEqual({
          emisor_rfc: 'FUNK671228PH6',
          total: '34800.00',
          validation: 'validated',
          reconciliation: 'sin_pago',
        });
        expect(JSON.parse(answers[receivedAt + 2]!)).toEqual({ direction: 'received', kind: 'metadata', status: 'requested' });

        // Retenciones: the rent's, stamped, its amounts withheld computed; then listed.
        const retencion = JSON.parse(answers.find((l) => l.startsWith('{"status":"vigente","uuid"'))!);
        expect(retencion).toMatchObject({
          uuid: expect.stringMatching(/^[0-9A-F-]{36}$/),
          totales: { monto_tot_operacion: 20000, monto_tot_grav: 20000, monto_tot_exent: 0, monto_tot_ret: 4133.34 },
        });
        expect(JSON.parse(answers.find((l) => l.startsWith('{"listed"'))!)).toEqual({ listed: 1, cve_retenc: '05' });
        expect(JSON.parse(answers.find((l) => l.startsWith('{"status":"cancelado"'))!)).toMatchObject({ cancelacion: { motivo: '02' } });

        // The email: the second curl prints its sending; the sink gets both files (the server sends on its own).
        const sending = JSON.parse(out.trim().split('\n').at(-1)!);
        expect(sending).toMatchObject({ to: ['ana@example.com'] });
        for (let i = 0; i < 200 && sink.received.length === 0; i++) await Bun.sleep(50);
        const mail = sink.received[0]!;
        expect(mail.attachments.find((a) => a.filename === `${uuid}.xml`)?.content.equals(readFileSync(join(dir!, `${uuid}.xml`)))).toBe(true);
        expect(mail.attachments.find((a) => a.filename === `${uuid}.pdf`)?.content.equals(pdf)).toBe(true);
      } finally {
        await stopServer(server.proc);
        await sink.close();
      }
    },
    60_000,
  );

  test('the walk-through marker is found once, before its block', () => {
    expect(walkThrough(`x\n${MARKER}\n\`\`\`sh\necho hi\n\`\`\`\n`)).toBe('echo hi');
    expect(() => walkThrough('no marker')).toThrow('marker');
    expect(walkThrough(`${CARTA_PORTE}\n\`\`\`sh\ncurl x\n\`\`\`\n`, CARTA_PORTE)).toBe('curl x');
  });
});

describe('README.md, the typed client', () => {
  const tools = ['npm', 'node', 'bash'].filter((tool) => !Bun.which(tool));
  // npm reaches the registry (or its cache) for openapi-fetch; the package itself comes from the clone, unbuilt.
  test.skipIf(tools.length > 0)(
    'its install line works in an empty project beside the clone, and plain Node.js imports the package',
    () => {
      const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
      const script = walkThrough(readme, CLIENT_INSTALL);
      const beside = join(work, 'beside');
      mkdirSync(join(beside, 'project'), { recursive: true });
      // The client folder as a fresh clone has it: without the node_modules the repository's own install puts there.
      const client = join(REPO, 'clients', 'typescript');
      cpSync(client, join(beside, 'cfdi-api', 'clients', 'typescript'), { recursive: true, filter: (from) => !from.startsWith(join(client, 'node_modules')) });
      writeFileSync(join(beside, 'project', 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true }));
      // Without the npm_* variables of the npm that started the tests, which would point npm at this repository.
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
      const run = Bun.spawnSync(['bash', '-euo', 'pipefail', '-c', script], {
        cwd: join(beside, 'project'),
        env: { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      expect({ code: run.exitCode, err: run.stderr.toString() }).toEqual({ code: 0, err: '' });
      expect(run.stdout.toString().trim().split('\n').at(-1)).toBe('function');
      // A copy, not a link into the clone.
      expect(lstatSync(join(beside, 'project', 'node_modules', '@cfdi-api', 'client')).isDirectory()).toBe(true);
    },
    60_000,
  );
});

describe('README.md, Scale out', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Scale out'), readme.indexOf('## Endpoints'));

  test('names only settings the service reads, and every secret the instances must share', () => {
    const env = readFileSync(join(REPO, 'src/env.ts'), 'utf8');
    const names = new Set([...section.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]!));
    for (const name of names) expect({ name, read: env.includes(`  ${name}: z`) }).toEqual({ name, read: true });
    for (const shared of ['DATABASE_URL', 'JWT_SECRET', 'MASTER_KEY', 'TRUSTED_PROXIES']) expect(names).toContain(shared);
  });

  test('its migrate line is what the command prints; both balancers check /api/v1/health and pass X-Forwarded-For', () => {
    const line = section.match(/^# → (migrated .*)$/m)?.[1];
    expect(line).toMatch(/^migrated PostgreSQL \S+: \d+ migrations? applied; master key check (recorded|matched); sandbox SAT certificate (created|present)$/);
    const haproxy = section.match(/```haproxy\n([\s\S]*?)```/)?.[1] ?? '';
    expect(haproxy).toContain('balance roundrobin');
    expect(haproxy).toContain('uri /api/v1/health');
    expect(haproxy).toContain('option forwardfor');
    const nginx = section.match(/```nginx\n([\s\S]*?)```/)?.[1] ?? '';
    expect(nginx).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    expect(nginx).toContain('health_check uri=/api/v1/health');
    expect(section).toContain('pg_dump');
    expect(section).toContain('pg_basebackup');
  });
});
