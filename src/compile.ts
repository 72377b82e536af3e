import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Builds the single executable: `npm run build` → dist/cfdi-api, one file that serves the whole API on an embedded
 * SQLite file, with nothing beside it.
 *   npm run build -- [--target bun-linux-arm64 | bun-linux-x64-musl | …] [--outfile path]
 *
 * What the service reads at run time travels inside it: the SAT catalogs and schemas, the PDF fonts, xmllint's .wasm,
 * the /docs assets and the demo CSD are file imports (src/files.d.ts), and the migrations folder is embedded as an asset (src/db/client.ts).
 * better-sqlite3 looks for its native addon by probing paths at run time, which a bundle cannot follow; its
 * per-platform entry point requires the prebuilt addon statically, so Bun embeds it. That entry is chosen here.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface CompileOptions {
  /** A Bun compile target; the host's when absent. */
  target?: Bun.Build.CompileTarget;
  outfile?: string;
}

/** better-sqlite3's entry point for a compile target (or the host): linux-x64, linuxmusl-arm64, darwin-arm64, … */
export function sqliteEntryFor(target: string | undefined): string {
  if (!target) {
    const musl =
      process.platform === 'linux' && !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
    return `${musl ? 'linuxmusl' : process.platform}-${process.arch}`;
  }
  const m = /^bun-(linux|darwin|windows)-(x64|arm64)(?:-(?:baseline|modern))?(?:-(musl|glibc))?$/.exec(target);
  if (!m) throw new Error(`unsupported target ${target}`);
  const [, os, arch, libc] = m;
  return `${os === 'windows' ? 'win32' : os === 'linux' && libc === 'musl' ? 'linuxmusl' : os}-${arch}`;
}

export async function compileExecutable({ target, outfile = join(ROOT, 'dist', 'cfdi-api') }: CompileOptions = {}): Promise<string> {
  const sqliteEntry = createRequire(import.meta.url).resolve(`better-sqlite3/${sqliteEntryFor(target)}`);
  mkdirSync(dirname(outfile), { recursive: true });
  const cwd = process.cwd();
  process.chdir(ROOT); // assets keep the path they are given, relative to here: drizzle/ → <executable>/drizzle
  try {
    const result = await Bun.build({
      // The PDF render thread and the xmllint thread are entry points of their own: Bun embeds them, and new Worker()
      // finds each by its path.
      entrypoints: [
        join(ROOT, 'src', 'bin.ts'),
        join(ROOT, 'src', 'invoices', 'cfdis', 'pdf-worker.ts'),
        join(ROOT, 'src', 'cfdi', 'received', 'xmllint-worker.ts'),
      ],
      // .env in the working directory is read, as `bun src/index.ts` does; a stray bunfig.toml is not.
      compile: { ...(target && { target }), outfile, assets: ['drizzle'], autoloadBunfig: false },
      // Not minified: a stack trace from the executable keeps the source's names.
      plugins: [
        {
          name: 'better-sqlite3-prebuilt',
          setup(build) {
            build.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: sqliteEntry }));
          },
        },
        {
          // The bundler would write xmllint-wasm's folder on this machine into the executable as its __dirname; the
          // xmllint thread is handed its .wasm by path (locateFile), so the folder is never used and left out.
          name: 'xmllint-without-build-paths',
          setup(build) {
            build.onLoad({ filter: /xmllint-wasm[\\/]xmllint-node\.js$/ }, async (args) => ({
              contents: (await Bun.file(args.path).text()).replaceAll('__dirname', '"."').replaceAll('__filename', '"xmllint-node.js"'),
              loader: 'js',
            }));
          },
        },
      ],
    });
    if (!result.success) throw new AggregateError(result.logs, 'bun build --compile failed');
  } finally {
    process.chdir(cwd);
  }
  return outfile;
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  const outfile = await compileExecutable({
    target: arg('target') as Bun.Build.CompileTarget | undefined,
    outfile: arg('outfile') && resolve(arg('outfile')!),
  });
  console.log(outfile);
}
