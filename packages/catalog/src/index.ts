export * from './currencies';
export * from './channels';
export * from './capabilities';
