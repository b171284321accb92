// `@cowrie/rails/testing`: what other packages' tests use of this one (the
// local stand-in of Flutterwave's documented transfer API). Never imported by a
// package's src/: the build refuses to bundle it (scripts/build/bundle.mjs).
export * from './flutterwave-stand-in';
