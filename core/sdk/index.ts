/** The surface plugins may import. Vendors' plugins use `require('encoderd/sdk')` or this path. */
export * from './plugin';
export * from './media';
export * from './quote';
export * from './sdp';
export * from './types';
export * from './uri';
