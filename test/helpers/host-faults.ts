/**
 * The environment of a service whose engine hosts take injected faults (test/fixtures/host-faults.js, preloaded):
 * `start`: while that file exists no host can start; `play`: while it exists the next play fails, once.
 */
import { join } from 'node:path';

const PRELOAD = join(__dirname, '../fixtures/host-faults.js');

export function hostFaultEnv(files: { start?: string; play?: string }): NodeJS.ProcessEnv {
  return {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${PRELOAD}`].filter(Boolean).join(' '),
    ...(files.start ? { TEST_HOST_FAULT_START: files.start } : {}),
    ...(files.play ? { TEST_HOST_FAULT_PLAY: files.play } : {}),
  };
}
