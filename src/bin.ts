/**
 * The executable's entry point (src/compile.ts). `cfdi-api` (or `cfdi-api serve`) serves the API, as `npm start` does;
 * `cfdi-api healthcheck` asks the service on $HOST:$PORT for /health (the container's HEALTHCHECK: the image has no curl);
 * anything else (`--help`, `--version`, an operator command: `cfdi-api jobs failed`, …) goes to src/cli.ts.
 */
import { main } from './cli.ts';

const [command, ...rest] = process.argv.slice(2);
if (command === undefined || command === 'serve') {
  await import('./index.ts');
} else if (command === 'healthcheck') {
  const port = process.env.PORT || '3000';
  // Where HOST binds the service; bound to every interface (the default), it answers on loopback.
  const host = process.env.HOST || '0.0.0.0';
  const address = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const ok = await fetch(`http://${address}:${port}/api/v1/health`, { signal: AbortSignal.timeout(4000) }).then(
    (r) => r.ok,
    () => false,
  );
  process.exit(ok ? 0 : 1);
} else {
  await main([command, ...rest]);
}
