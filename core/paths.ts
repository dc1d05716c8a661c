/** Where the project's files are, whether running from TypeScript sources (tests) or from dist/. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'native'))) return dir;
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error(`encoderd: cannot find the project root above ${start}`);
    dir = parent;
  }
}

export const projectRoot = findRoot(__dirname);
export const nativeDir = join(projectRoot, 'native');
/** The compiled engine host entry; child processes always run compiled JS for a fast start. */
export const engineHostScript = join(projectRoot, 'dist/core/engine/host-main.js');
/**
 * The native engine host executable (docs/engine-host.md) in root: the local build (scripts/build-native.mjs) where
 * there is one, else the prebuild for this machine (scripts/prebuild-native.mjs), which is all a deployed tree has.
 * The addon's order (node-gyp-build): a checkout runs its own C.
 */
export function nativeHostIn(root: string): string {
  const built = join(root, 'native/build/encoderd-host');
  const prebuilt = join(root, 'native/prebuilds', `${process.platform}-${process.arch}`, 'encoderd-host');
  return !existsSync(built) && existsSync(prebuilt) ? prebuilt : built;
}
export const nativeEngineHost = nativeHostIn(projectRoot);
export const standaloneGstPluginDir = join(projectRoot, 'native/build/gst-plugins');
