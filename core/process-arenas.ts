/**
 * The API process's glibc arenas, fixed when the process starts.
 *
 * glibc gives each thread that allocates an arena of its own (up to 8 a core), and each arena keeps pages half
 * used that no malloc_trim gives back; the API's RSS crept with them over soaks (docs/operations.md, "Memory over
 * weeks"). glibc reads MALLOC_ARENA_MAX only at a process's start, and by the time any JavaScript runs, V8's and
 * libuv's threads have made arenas of their own: a `mallopt(M_ARENA_MAX, 2)` from main() still left the API
 * with six (a smaps capture of 2026-11-27). So `bin/encoderd` calls this first: when the variable is not set it sets
 * it and starts the same process again (execv, same pid and arguments), before the service is even loaded.
 *
 * The engine hosts keep their own figure (host-process.ts): the variable this sets is taken out of the environment
 * again after the exec, so they do not inherit it. An operator's MALLOC_ARENA_MAX is left alone and holds for both.
 */
import type * as Native from '../native';
import { nativeDir } from './paths';

/** glibc arenas of the API process: its main arena alone (docs/operations.md, "Memory over weeks"). */
export const API_MALLOC_ARENAS = 1;

/** Set with MALLOC_ARENA_MAX before the exec, so the new image knows the variable was ours, not an operator's. */
const SET_BY_US = 'ENCODERD_ARENAS_AT_EXEC';

/**
 * Returns when the process runs with its arenas fixed (or cannot be: then it limits the arenas still to come and
 * says why on stderr); otherwise does not return, the process having started again.
 */
export function startWithFixedArenas(): void {
  if (process.env[SET_BY_US]) {
    delete process.env[SET_BY_US];
    delete process.env.MALLOC_ARENA_MAX;
    return;
  }
  if (process.env.MALLOC_ARENA_MAX) return;
  // The addon without init(): no GStreamer, no thread, in the image about to be replaced.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const native = require(nativeDir) as typeof Native;
  process.env.MALLOC_ARENA_MAX = String(API_MALLOC_ARENAS);
  process.env[SET_BY_US] = '1';
  try {
    native.execSelf(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)]);
  } catch (err) {
    delete process.env[SET_BY_US];
    delete process.env.MALLOC_ARENA_MAX;
    native.mallocArenaMax(API_MALLOC_ARENAS);
    process.stderr.write(`encoderd: could not start again with MALLOC_ARENA_MAX=${API_MALLOC_ARENAS} (${(err as Error).message}); limiting the arenas still to come\n`);
  }
}
