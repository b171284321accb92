// `@cowrie/verification/testing`: what other packages' tests use of this one
// (local stand-ins of Termii's and WhatsApp's documented APIs, and their
// signed delivery reports). Never imported by a package's src/: the build
// refuses to bundle it (scripts/build/bundle.mjs).
export * from './termii-stand-in';
export * from './termii-reports';
export * from './whatsapp-stand-in';
