/**
 * The environment of a service whose engine hosts take injected faults, in either host: a Node host through
 * test/fixtures/host-faults.js (preloaded), the native one through native/test-host-faults (an LD_PRELOAD shim built
 * by `node scripts/build-native.mjs --test`). Each acts only in its own kind of host.
 * `start`: while that file exists no host can start; `play`: while it exists the next play fails, once.
 * Node host only (the native shim has neither): `set`: the next live property change fails, once; `stopExit`: the
 * next stop ends the host, once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const PRELOAD = join(__dirname, '../fixtures/host-faults.js');
const NATIVE_SHIM = join(__dirname, '../../native/build/test/host-faults.so');

export function hostFaultEnv(files: { start?: string; play?: string; set?: string; stopExit?: string }): NodeJS.ProcessEnv {
  if (!existsSync(NATIVE_SHIM) && process.env.ENCODERD_ENGINE_HOST !== 'node') {
    throw new Error(`no ${NATIVE_SHIM}: the native host's faults need \`node scripts/build-native.mjs --test\``);
  }
  return {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${PRELOAD}`].filter(Boolean).join(' '),
    ...(existsSync(NATIVE_SHIM) ? { LD_PRELOAD: [process.env.LD_PRELOAD, NATIVE_SHIM].filter(Boolean).join(' ') } : {}),
    ...(files.start ? { TEST_HOST_FAULT_START: files.start } : {}),
    ...(files.play ? { TEST_HOST_FAULT_PLAY: files.play } : {}),
    ...(files.set ? { TEST_HOST_FAULT_SET: files.set } : {}),
    ...(files.stopExit ? { TEST_HOST_FAULT_STOP_EXIT: files.stopExit } : {}),
  };
}
