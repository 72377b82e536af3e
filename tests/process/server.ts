import { expect } from 'bun:test';
import { csdFiles, csdForm, TENANTS } from '../helpers.ts';

/** Starts `src/index.ts` (or `command`, e.g. the compiled executable) on a free port (PORT=0) and waits for its "listening" log line; `startLog` is stdout up to it. */
export async function startServer(dataDir: string, env: Record<string, string> = {}, { command = [process.execPath, 'src/index.ts'], cwd }: { command?: string[]; cwd?: string } = {}) {
  const proc = Bun.spawn(command, {
    cwd,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', JWT_SECRET: '', MASTER_KEY: '', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const reader = proc.stdout.getReader();
  let buffered = '';
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += new TextDecoder().decode(value);
    const line = buffered.split('\n').find((l) => l.includes('"msg":"listening"'));
    if (line) {
      reader.releaseLock();
      void proc.stdout.pipeTo(new WritableStream()); // keep draining the logs
      return { proc, base: `http://127.0.0.1:${JSON.parse(line).port}/api/v1`, startLog: buffered };
    }
  }
  proc.kill();
  throw new Error(`server did not start: ${buffered} ${await new Response(proc.stderr).text()}`);
}

export async function stopServer(proc: Bun.Subprocess) {
  proc.kill('SIGTERM');
  expect(await proc.exited).toBe(0);
}

/** Request options for a JSON call, with a bearer credential when given. */
export const json = (method: string, body?: unknown, token?: string, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  body: body === undefined ? undefined : JSON.stringify(body),
});

/** POST a JSON body to `base` + `path`. */
export const post = (base: string, path: string, body: unknown, token?: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, json('POST', body, token, headers));

/** The EKU9003173C9 test issuer on a running server: registered, a sk_test_ key, its CSD uploaded. Throws on any step's failure. */
export async function issuerOn(base: string, email: string): Promise<{ tenantId: string; accessToken: string; key: string }> {
  const step = async (res: Response, what: string) => {
    if (res.status !== 201) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const reg = await step(await post(base, '/auth/register', { email, password: 'a-long-password-1', nombre: 'Issuer', tenant: TENANTS.EKU }), 'register');
  const { key } = await step(await post(base, '/api-keys', { name: 'ERP' }, reg.access_token), 'API key');
  await step(await fetch(`${base}/csds`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: csdForm(csdFiles('EKU9003173C9_CSD', 'EKU9003173C9')) }), 'CSD upload');
  return { tenantId: reg.tenant.id, accessToken: reg.access_token, key };
}
