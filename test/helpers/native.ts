/**
 * The real addon for tests that drive it directly, initialised once per file, and the pipelines a test made,
 * destroyed after each test.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import type * as Native from '../../native';

export const native: typeof Native = createRequire(__filename)(join(__dirname, '../../native'));

/** A list to push each test's pipelines onto; they are destroyed after every test of the calling file. */
export function livePipelines(): Native.Pipeline[] {
  const live: Native.Pipeline[] = [];
  beforeAll(() => native.init());
  afterEach(() => {
    for (const p of live.splice(0)) p.destroy();
  });
  return live;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export type { Native };
