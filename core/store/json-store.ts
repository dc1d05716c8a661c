/**
 * Atomic JSON documents under the data dir. A write goes to a temp file, is fsynced, renamed over the old
 * document, and the directory is fsynced: a crash at any instant leaves the old or the new document, never a
 * torn one. Leftover temp files of an interrupted write are ignored and swept.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../errors/catalogue';
import { syncDir, writeFileAtomic } from './atomic-file';

export interface Store {
  read<T>(collection: string, name: string): T | undefined;
  write(collection: string, name: string, value: unknown): void;
  remove(collection: string, name: string): void;
  list(collection: string): string[];
}

const NAME = /^[a-zA-Z0-9_-]{1,128}$/;

export class JsonStore implements Store {
  constructor(private readonly root: string, private readonly mode = 0o600) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  private dir(collection: string): string {
    if (!NAME.test(collection)) throw new Error(`bad collection name ${collection}`);
    const dir = join(this.root, collection);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  private file(collection: string, name: string): string {
    if (!NAME.test(name)) throw new Error(`bad document name ${name}`);
    return join(this.dir(collection), `${name}.json`);
  }

  read<T>(collection: string, name: string): T | undefined {
    try {
      return JSON.parse(readFileSync(this.file(collection, name), 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  write(collection: string, name: string, value: unknown): void {
    try {
      writeFileAtomic(this.file(collection, name), JSON.stringify(value, null, 2), this.mode);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'EROFS') throw err;
      // Not a defect of the service: the operator must free space (docs/operations.md, "Disk full").
      throw new ApiError('INSUFFICIENT_STORAGE', `the data dir is ${code === 'EROFS' ? 'read-only' : 'full'} (${code}): ${collection}/${name} was not stored; the stored version is unchanged`);
    }
  }

  remove(collection: string, name: string): void {
    rmSync(this.file(collection, name), { force: true });
    this.syncDir(collection);
  }

  list(collection: string): string[] {
    const dir = this.dir(collection);
    const names: string[] = [];
    for (const entry of readdirSync(dir)) {
      if (entry.endsWith('.tmp')) rmSync(join(dir, entry), { force: true });
      else if (entry.endsWith('.json')) names.push(entry.slice(0, -'.json'.length));
    }
    return names.sort();
  }

  private syncDir(collection: string): void {
    syncDir(this.dir(collection));
  }
}
