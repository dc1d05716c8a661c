/**
 * The environment of a service whose camera discovery sees fake cameras: test/fixtures/fake-cameras.js, preloaded,
 * registers the test-only fake camera provider (native/test-addon/, built by `node scripts/build-native.mjs --test`)
 * in the API process and mirrors dir into it, one camera per `<name>.json` file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const PRELOAD = join(__dirname, '../fixtures/fake-cameras.js');
const ADDON = join(__dirname, '../../native/build/test/encoderd-fake-cameras.node');

export function fakeCameraEnv(dir: string): NodeJS.ProcessEnv {
  if (!existsSync(ADDON) && !process.env.ENCODERD_FAKE_CAMERA_ADDON) {
    throw new Error(`no ${ADDON}: fake cameras need \`node scripts/build-native.mjs --test\``);
  }
  return {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${PRELOAD}`].filter(Boolean).join(' '),
    TEST_FAKE_CAMERAS: dir,
  };
}
