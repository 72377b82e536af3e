import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import lock from '../package-lock.json' with { type: 'json' };
import pkg from '../package.json' with { type: 'json' };

/**
 * Installing (issue 18, item 16): the Node.js range package.json declares is one every installed package accepts (no
 * EBADENGINE warning on a supported version) and the one README.md states; every dependency with an install script
 * is reviewed in allowScripts, so an npm that blocks unreviewed scripts still installs what the project needs.
 */
const packages = Object.entries(lock.packages as Record<string, { version?: string; engines?: Record<string, string>; hasInstallScript?: boolean }>)
  .filter(([path]) => path.startsWith('node_modules/') || path.includes('/node_modules/'))
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), ...entry }));

/** Install scripts the project needs: Bun's binary for this platform, SQLite's addon where no prebuild ships, esbuild (drizzle-kit). */
const NEEDED = ['bun', 'better-sqlite3', 'esbuild'];

describe('install', () => {
  test('engines: the lowest supported Node.js and the current LTS satisfy every installed package; README.md says the same range', () => {
    const lowest = pkg.engines.node.match(/^>=(\d+\.\d+\.\d+)$/)?.[1];
    expect(lowest).toBeDefined();
    expect((lock.packages as any)[''].engines.node).toBe(pkg.engines.node);
    for (const version of [lowest!, '24.0.0']) {
      const refused = packages
        .filter((p) => p.engines?.node && !Bun.semver.satisfies(version, p.engines.node))
        .map((p) => `${p.name}@${p.version}: ${p.engines!.node}`);
      expect([version, refused]).toEqual([version, []]);
    }
    expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8').includes(`\`${pkg.engines.node}\``)).toBe(true);
  });

  test('allowScripts: every package with an install script is reviewed; the needed ones run, analytics does not', () => {
    const allow = (pkg as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = [...new Set(packages.filter((p) => p.hasInstallScript).map((p) => p.name))];
    expect(withScripts.filter((name) => !(name in allow))).toEqual([]);
    for (const name of NEEDED) expect([name, allow[name]]).toEqual([name, true]);
    expect(allow['@scarf/scarf']).toBe(false);
    // The typed client (a file: link) ships its build and runs nothing on install, so it needs no approval.
    expect((pkg.devDependencies as Record<string, string>)['@cfdi-api/client']).toBe('file:clients/typescript');
    expect(allow['file:../../clients/typescript']).toBeUndefined();
  });
});
