export * from './types';
export * from './nigerian-banks';
export * from './sandbox-rail';
export * from './paystack-rail';
export * from './flutterwave-rail';
export * from './bank-cache';
export * from './create-rails';
export * from './routing';
