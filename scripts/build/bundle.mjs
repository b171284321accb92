// `npm run build` (per package, through turbo): compiles a runnable (a service's
// main, or the operator CLI) into one CommonJS file, dist/main.js, with esbuild.
// Cowrie's own packages (@cowrie/*) are compiled into the bundle; every npm
// dependency stays external and is loaded from node_modules at run time, so the
// production image needs the npm dependencies and dist/, not the sources.
//
//   node ../../scripts/build/bundle.mjs [--asset <npm file>=<name in dist>]...
//
// An asset is a file or folder of an npm package the runnable serves (the
// gateway's API reference renderer, the built dashboard), copied into dist/ so
// production needs no copy of that package. dist/meta.json lists the npm packages the bundle loads.
//
//   --lazy <folder of src>   (the CLI: --lazy src/load)
//
// Each module in that folder becomes a bundle of its own (dist/load/<name>.js), which
// the main bundle loads with import() when it needs it, rather than compiled into it:
// a command then loads only its own packages. In one bundle esbuild would either load
// every npm package at start, or (for a module loaded with import()) wrap the module
// and keep every module of each package index it reaches.
import { build } from 'esbuild';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { asset: { type: 'string', multiple: true, default: [] }, lazy: { type: 'string' } } });
const packageDir = process.cwd();
const { name } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
const outdir = path.join(packageDir, 'dist');
rmSync(outdir, { recursive: true, force: true });

/** Bare specifiers other than @cowrie/* stay require()s; a path or @cowrie/* is compiled in. */
const npmPackagesExternal = {
  name: 'npm-packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@cowrie/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** The --lazy modules: their entry names (load/accounts) by their path without extension. */
const lazyModules = new Map();
if (values.lazy) {
  const dir = path.join(packageDir, values.lazy);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    lazyModules.set(path.join(dir, file.replace(/\.ts$/, '')), path.relative(path.join(packageDir, 'src'), path.join(dir, file.replace(/\.ts$/, ''))));
  }
}

/** An import() of a --lazy module stays an import (a require() of its own bundle); any other import of one is an error. */
const lazyModulesExternal = {
  name: 'lazy-modules-external',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const entry = lazyModules.get(path.resolve(args.resolveDir, args.path).replace(/\.[cm]?[jt]s$/, ''));
      if (entry === undefined) return undefined;
      const importer = path.relative(packageDir, args.importer);
      if (args.kind !== 'dynamic-import') return { errors: [{ text: `${importer}: load ${args.path} with import(), so it is loaded only when used` }] };
      if (lazyModules.has(args.importer.replace(/\.ts$/, ''))) return { errors: [{ text: `${importer}: a lazy module cannot load another (${args.path})` }] };
      return { path: `./${entry}.js`, external: true };
    });
  },
};

const result = await build({
  entryPoints: { main: path.join(packageDir, 'src/main.ts'), ...Object.fromEntries([...lazyModules].map(([file, entry]) => [entry, `${file}.ts`])) },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Names survive (error classes, loggers); a readable bundle over a small one: it is not downloaded.
  keepNames: true,
  // import() of an npm package becomes require(): Prisma's client imports its 4.5 MB query
  // compiler with import(), and Node's ESM loader then reads and scans it again (~100 ms a start).
  supported: { 'dynamic-import': false },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  plugins: [lazyModulesExternal, npmPackagesExternal],
});

// Test support never ships: a stand-in, a test helper or @cowrie/testing reached
// from a runnable's sources fails the build rather than landing in dist/.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const forTests = Object.keys(result.metafile.inputs)
  .map((input) => path.relative(root, path.resolve(packageDir, input)).split(path.sep).join('/'))
  .filter((input) => /^(?:packages|services)\/[^/]+\/(?:test|testing)\//.test(input) || input.startsWith('packages/testing/'));
if (forTests.length > 0) {
  console.error(`${name}: the build reached files that are for tests only:\n  ${forTests.join('\n  ')}`);
  rmSync(outdir, { recursive: true, force: true });
  process.exit(1);
}

const externals = new Set();
for (const output of Object.values(result.metafile.outputs)) {
  for (const imported of output.imports) {
    if (!imported.external || imported.path.startsWith('node:') || imported.path.startsWith('.')) continue;
    const parts = imported.path.split('/');
    externals.add(imported.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
}
writeFileSync(path.join(outdir, 'meta.json'), `${JSON.stringify({ name, npmPackages: [...externals].sort() }, null, 2)}\n`);

/** A file or folder inside an installed npm package, found as Node finds the package (its exports may not list the file). */
function npmFile(spec) {
  const parts = spec.split('/');
  const pkg = parts.slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  const file = parts.slice(pkg.split('/').length).join('/');
  const dirs = createRequire(path.join(packageDir, 'package.json')).resolve.paths(pkg) ?? [];
  const found = dirs.map((dir) => path.join(dir, pkg, file)).find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`${spec} is not installed`);
  return found;
}

for (const asset of values.asset) {
  const [from, to] = asset.split('=');
  cpSync(npmFile(from), path.join(outdir, to), { recursive: true, dereference: true });
}
