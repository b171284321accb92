// `@cowrie/paystack/testing`: what other packages' tests use of this one (the
// local stand-in of Paystack's documented API, for both rails). Never imported
// by a package's src/: the build refuses to bundle it (scripts/build/bundle.mjs).
export * from './paystack-stand-in';
