/**
 * Small file systems of a given size for disk-full and read-only tests: tmpfs mounts (the tests run as root in
 * a container that allows mount). `mountRefused` says why they cannot be made here, or null.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function mount(dir: string, options: string): string | null {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `mount exited ${r.status}`).trim();
}

/** Why no tmpfs can be mounted here (not root, no CAP_SYS_ADMIN), or null when it can. */
export const mountRefused: string | null = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'tmpfs-probe-'));
  const why = mount(dir, 'size=64k');
  if (!why) spawnSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
  return why;
})();

export interface Tmpfs {
  dir: string;
  /** Fills the rest of it with one file; returns that file's path. */
  fill(): string;
  unmount(): void;
}

/** A fresh tmpfs of `size` (mount's syntax: 2m, 64k), `ro` for a read-only one. */
export function tmpfs(size: string, opts: { ro?: boolean } = {}): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), 'tmpfs-'));
  const why = mount(dir, `size=${size}${opts.ro ? ',ro' : ''}`);
  if (why) throw new Error(`cannot mount a tmpfs on ${dir}: ${why}`);
  return {
    dir,
    fill() {
      const file = join(dir, 'filler');
      // dd stops with ENOSPC at the end of the file system: the failure is the point.
      spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=4k'], { encoding: 'utf8' });
      return file;
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
