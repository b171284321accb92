#!/usr/bin/env node
// `npx cowrie <command>`: the operator CLI. Runs the TypeScript sources through tsx.
require('tsx/cjs');
require('../src/main.ts');
