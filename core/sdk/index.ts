/** The surface plugins may import. Vendors' plugins use `require('encoderd/sdk')` or this path. */
export * from './plugin';
export * from './quote';
export * from './types';
export * from './uri';
