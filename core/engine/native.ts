/** Loads the addon once, typed by native/index.d.ts. */
import type * as Native from '../../native';
import { nativeDir } from '../paths';

let addon: typeof Native | undefined;

export function loadNative(): typeof Native {
  if (!addon) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    addon = require(nativeDir) as typeof Native;
    addon.init();
  }
  return addon;
}

export type { Native };
