/**
 * The data dir checked before anything starts: a directory encoderd can create, write and sync, with room for its
 * documents. A read-only or full one is a clear one-line error and exit code 73 (EX_CANTCREAT), never a stack
 * trace from whichever component touched it first.
 */
import { mkdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file';

/** Exit code of a data dir the service cannot use (sysexits.h EX_CANTCREAT). */
export const DATA_DIR_EXIT_CODE = 73;
/** Below this much free space a start is refused: documents, the TLS certificate and keys need a little room. */
export const DATA_DIR_MIN_FREE_BYTES = 1024 * 1024;

export class DataDirError extends Error {}

export function checkDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new DataDirError(`data dir ${dir} cannot be created: ${reason(realMkdirError(dir, err))}`);
  }
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  if (free < DATA_DIR_MIN_FREE_BYTES) {
    throw new DataDirError(`data dir ${dir} is full: ${free} bytes free, encoderd needs at least ${DATA_DIR_MIN_FREE_BYTES}`);
  }
  // What the store does on every write: a temp file, fsync, rename, directory fsync.
  const probe = join(dir, '.write-check');
  try {
    writeFileAtomic(probe, 'encoderd');
    rmSync(probe, { force: true });
  } catch (err) {
    rmSync(probe, { force: true });
    throw new DataDirError(`data dir ${dir} cannot be written: ${reason(err)}`);
  }
}

/** A recursive mkdir under a read-only mount says ENOENT; a plain one, where the parent exists, says why. */
function realMkdirError(dir: string, err: unknown): unknown {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return err;
  try {
    mkdirSync(dir, { mode: 0o700 });
    return err;
  } catch (plain) {
    return plain;
  }
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EROFS') return 'the file system is read-only (EROFS)';
  if (e.code === 'ENOSPC') return 'no space left on the device (ENOSPC)';
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied (${e.code}): run encoderd as the data dir's owner`;
  return e.code && !e.message.startsWith(e.code) ? `${e.code}: ${e.message}` : e.message;
}
