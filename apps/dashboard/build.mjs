// `npm run build` of the dashboard: bundles src/main.tsx (React) and its CSS
// with esbuild into dist/assets/ under content-hashed names, and writes
// dist/index.html pointing at them. No inline script or style: the gateway
// serves dist/ at /dashboard under a Content-Security-Policy that allows only
// its own files (services/gateway/src/routes/dashboard-app.ts).
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.join(here, 'dist');
/** The path the gateway serves the dashboard under (DASHBOARD_PATH). */
const base = '/dashboard';
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const result = await build({
  entryPoints: { app: path.join(here, 'src/main.tsx') },
  outdir: path.join(outdir, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  minify: true,
  // No source maps: the sources are in the repository, and the production image stays small.
  sourcemap: false,
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(outdir, file).split(path.sep).join('/'));
const script = outputs.find((file) => file.endsWith('.js'));
const stylesheet = outputs.find((file) => file.endsWith('.css'));
if (!script || !stylesheet) throw new Error(`dashboard build: expected one .js and one .css output, got ${outputs.join(', ')}`);

writeFileSync(
  path.join(outdir, 'index.html'),
  `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Cowrie dashboard</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${base}/${stylesheet}" />
    <script type="module" src="${base}/${script}"></script>
  </head>
  <body>
    <div id="root"></div>
    <noscript>The Cowrie dashboard needs JavaScript.</noscript>
  </body>
</html>
`,
);
