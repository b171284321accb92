#!/usr/bin/env node
// `npx cowrie <command>`: the operator CLI, compiled by `npm run build` (npm start
// builds too). A checkout that was never built runs the sources through tsx, slowly.
const path = require('node:path');
const fs = require('node:fs');

const compiled = path.join(__dirname, '../dist/main.js');
if (fs.existsSync(compiled)) {
  require(compiled);
} else {
  process.stderr.write('cowrie: running from sources (npm run build makes this command fast)\n');
  require('tsx/cjs');
  require('../src/main.ts');
}
