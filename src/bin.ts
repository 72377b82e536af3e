/**
 * The executable's entry point (src/compile.ts). `cfdi-api` (or `cfdi-api serve`) serves the API, as `npm start` does;
 * `cfdi-api healthcheck` asks the service on $PORT for /health (the container's HEALTHCHECK: the image has no curl);
 * anything else (`--help`, `--version`, an operator command: `cfdi-api jobs failed`, …) goes to src/cli.ts.
 */
import { main } from './cli.ts';

const [command, ...rest] = process.argv.slice(2);
if (command === undefined || command === 'serve') {
  await import('./index.ts');
} else if (command === 'healthcheck') {
  const port = process.env.PORT || '3000';
  const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`, { signal: AbortSignal.timeout(4000) }).then(
    (r) => r.ok,
    () => false,
  );
  process.exit(ok ? 0 : 1);
} else {
  await main([command, ...rest]);
}
