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
/** The native engine host executable (docs/engine-host.md), built by scripts/build-native.mjs. */
export const nativeEngineHost = join(projectRoot, 'native/build/encoderd-host');
export const standaloneGstPluginDir = join(projectRoot, 'native/build/gst-plugins');
