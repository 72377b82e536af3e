/**
 * `npm test`'s second pass: the suite again with TEST_ENGINE=postgres. Without a reachable PostgreSQL it has said so
 * in one line (tests/postgres.ts) and passes, unless REQUIRE_POSTGRES is set (CI), where that fails it.
 *
 * The CFDI engine's unit tests and SAT's samples (tests/cfdi, tests/sat) open no database, so they run once, in the
 * first pass; tests/cfdi's files that issue through the app (corpus.test.ts, rules/rules.test.ts,
 * received/validate.test.ts) run in both. The SAT mock's own test (tests/sat-mock) opens none either.
 */
import { Glob } from 'bun';
import { POSTGRES } from './postgres.ts';

const ENGINE_FREE = [
  'tests/sat/**',
  'tests/sat-mock/**',
  'tests/cfdi/**/!(corpus|rules|validate).test.ts',
  'tests/cfdi/!(rules)/rules.test.ts',
  'tests/pac/failover.test.ts',
  'tests/pac/retenciones.test.ts',
  'tests/pac/sat-retenciones.test.ts',
  'tests/pac/sat-certificates.test.ts',
  'tests/pac/descarga-masiva.test.ts',
  'tests/invoices/sat-downloads/prechecks.test.ts',
  'tests/failures.test.ts',
];

/**
 * The browser tests drive pages (the portal's, the console's) whose every request is an API request already tested on
 * both engines by their HTTP tests: the browser adds what the page does, which no engine changes, so it runs once.
 */
const PAGES_ONLY = ['tests/**/*.browser.test.ts'];

/** bun's JUnit report of this pass, which tests/failures.ts reads when a test fails. */
const REPORT = '.test-results/postgres.xml';

if (POSTGRES) {
  // A file left out must not reach a database: one that makes an app would lose its PostgreSQL run unseen.
  for (const pattern of ENGINE_FREE)
    for (const file of new Glob(pattern).scanSync('.'))
      if (/createTestApp|TEST_ENGINE|openDatabase/.test(await Bun.file(file).text()))
        throw new Error(`${file} uses a database but tests/run-on-postgres.ts leaves it out of the PostgreSQL pass`);
  console.log(`The suite on PostgreSQL (${POSTGRES}), without the engine-free ${ENGINE_FREE.join(', ')} and the browser's ${PAGES_ONLY.join(', ')}:`);
  // A longer per-test timeout than bun's 5 s: a test's first app copies a database, slower on a loaded machine.
  const run = Bun.spawn(
    [
      process.execPath,
      'test',
      '--timeout',
      '30000',
      '--reporter=junit',
      `--reporter-outfile=${REPORT}`,
      ...[...ENGINE_FREE, ...PAGES_ONLY].map((p) => `--path-ignore-patterns=${p}`),
      ...process.argv.slice(2),
    ],
    {
      env: { ...process.env, TEST_ENGINE: 'postgres' },
      stdio: ['inherit', 'inherit', 'inherit'],
    },
  );
  process.exitCode = await run.exited;
  // The failures again at the end, with their errors: a CI summary often keeps only the log's last lines.
  if (process.exitCode !== 0) Bun.spawnSync([process.execPath, 'tests/failures.ts', REPORT], { stdio: ['inherit', 'inherit', 'inherit'] });
}
