/**
 * The one way encoderd writes a file it cannot afford to tear: a temp file (created exclusively, with its final
 * mode), fsync, rename over the target, fsync of the directory. A crash at any instant leaves the old or the new
 * content, never a mix.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx', mode);
  try {
    try {
      if (typeof data === 'string') writeSync(fd, data);
      else writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    // A full disk fails the write: the old file stays, and the partial temp file must not hold the space.
    rmSync(temp, { force: true });
    throw err;
  }
  syncDir(dirname(path));
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
