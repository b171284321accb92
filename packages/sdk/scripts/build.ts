// Builds the publishable package into packages/sdk/dist:
//   npm run build -w @cowrie/sdk      (npm pack and npm publish run it first)
// dist/index.mjs (ESM) and dist/index.cjs (CommonJS), bundled by esbuild, and
// their declarations dist/index.d.mts and dist/index.d.cts, bundled by
// dts-bundle-generator. Both bundles inline the webhook signature module of
// @cowrie/webhooks (the sender's, the one implementation of the format), so
// the package needs nothing at run time but Node's own modules.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { generateDtsBundle } from 'dts-bundle-generator';

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const entry = path.join(root, 'src/index.ts');
// The only files from outside the SDK's sources that the bundles may hold: the
// signature module, and the package's own package.json, of which esbuild keeps
// only the `version` the client reads (a JSON module's unused fields are dropped).
const signatureModule = require.resolve('@cowrie/webhooks/src/signature');
const packageJson = path.join(root, 'package.json');

/** Every bundled file is the SDK's own or the signature module, and the bundle imports only Node's modules. */
function checkBundle(meta: Metafile, format: string) {
  for (const input of Object.keys(meta.inputs)) {
    const file = path.resolve(input);
    if (file !== signatureModule && file !== packageJson && !file.startsWith(path.join(root, 'src') + path.sep))
      throw new Error(
        `the ${format} bundle would hold ${input}; the SDK inlines only its own sources, its version and ${path.relative(root, signatureModule)}`,
      );
  }
  for (const output of Object.values(meta.outputs)) {
    for (const imported of output.imports) {
      const name = imported.path.replace(/^node:/, '');
      if (!imported.external || !builtinModules.includes(name))
        throw new Error(`the ${format} bundle imports ${imported.path}; the SDK may import only Node's own modules`);
    }
  }
}

async function main() {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist);
  // esbuild works in its own process while the declarations are bundled here.
  const bundles = (['esm', 'cjs'] as const).map(async (format) => {
    const result = await build({
      entryPoints: [entry],
      outfile: path.join(dist, format === 'esm' ? 'index.mjs' : 'index.cjs'),
      bundle: true,
      format,
      platform: 'node',
      target: 'node20',
      tsconfig: path.join(root, 'tsconfig.build.json'),
      metafile: true,
      logLevel: 'warning',
    });
    checkBundle(result.metafile, format);
  });

  const [types] = generateDtsBundle([{ filePath: entry, output: { noBanner: true, exportReferencedTypes: false } }], {
    preferredConfigPath: path.join(root, 'tsconfig.build.json'),
  });
  // The same declarations for both entry points: the module has no default export, so they read alike under import and require.
  writeFileSync(path.join(dist, 'index.d.mts'), types!);
  writeFileSync(path.join(dist, 'index.d.cts'), types!);
  await Promise.all(bundles);

  for (const file of readdirSync(dist)) {
    const other = /@cowrie\/(?!sdk\b)[\w-]+/.exec(readFileSync(path.join(dist, file), 'utf8'));
    if (other) throw new Error(`dist/${file} names ${other[0]}; the published SDK must stand alone`);
  }
  // On stderr: `npm pack --json` prints its report on stdout after this script's output.
  console.error(`wrote dist/: ${readdirSync(dist).join(', ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
