/** The surface plugins may import. Built-in plugins import this path; vendor plugins receive it from the loader (docs/plugins.md). */
export * from './plugin';
export * from './media';
export * from './stream-output';
export * from './quote';
export * from './sdp';
export * from './transport';
export * from './types';
export * from './uri';
export * from './file-key';
