/**
 * The one name of a file on this machine, for conflicts: `/tmp/./a.mkv`, `/tmp//a.mkv` and a path through a
 * symlinked directory (or a symlink to the file) all name the same file, so two pipelines writing them conflict.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export function resolvedFilePath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    // Not there yet (the usual case for a recording): its directory's real path and its own name.
  }
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}
