// ESM-only packages Jest must compile to CommonJS (jose, got and got's own
// dependencies, and the hashing and base32 of otplib's). Node itself loads them
// natively at run time.
const ESM_PACKAGES = [
  'jose',
  'got',
  '@sindresorhus',
  '@szmarczak',
  'byte-counter',
  'cacheable-lookup',
  'cacheable-request',
  'chunk-data',
  'decompress-response',
  'form-data-encoder',
  'http2-wrapper',
  'keyv',
  'lowercase-keys',
  'mimic-response',
  'normalize-url',
  'p-cancelable',
  'responselike',
  'type-fest',
  'uint8array-extras',
  'get-stream',
  'is-stream',
  '@keyv',
  'hookified',
  'quick-lru',
  'resolve-alpn',
  'char-regex',
  '@sec-ant',
  'tagged-tag',
  '@noble',
  '@scure',
];

/** One Jest run over every package and service; real Postgres and Redis (see scripts/jest). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/tests'],
  testMatch: ['**/?(*.)test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/generated/'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
    '^.+\\.m?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  // The SDK's package entry points are its build (dist/); inside the workspace it is read from its sources,
  // and its examples (tests/sdk runs quickstart.ts) from its examples/ folder.
  // A package's `testing` entry (`@cowrie/paystack/testing`) is resolved through its exports map.
  moduleNameMapper: {
    '^@cowrie/sdk$': '<rootDir>/packages/sdk/src/index.ts',
    '^@cowrie/sdk/examples/(.*)$': '<rootDir>/packages/sdk/examples/$1',
  },
  globalSetup: '<rootDir>/scripts/jest/global-setup.js',
  // A limit against a hung test, not a timing target: a test that takes 5 s on a
  // quiet machine took over 20 s on a loaded one (CI runs beside other work).
  testTimeout: 60_000,
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 2,
};
