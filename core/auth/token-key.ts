/**
 * The per-install key for token digests. Tokens are stored only as HMAC-SHA256(key, token): a copy of the auth
 * documents (a backup, a support bundle) yields no usable token, and even with the key a digest cannot be
 * turned back into a token. The key itself is not a token and grants nothing on its own; it lets a reader of
 * the data dir test guesses, which 256-bit random tokens defeat. Rotating it (delete the file, restart) ends
 * every session.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../store/atomic-file';

export const KEY_BYTES = 32;

export function tokenKeyPath(dataDir: string): string {
  return join(dataDir, 'secrets', 'token-hmac.key');
}

/** Reads the key, creating it (mode 0600, exclusive create) on first start; a damaged key is replaced. */
export function loadOrCreateTokenKey(dataDir: string, log?: Logger): Buffer {
  const path = tokenKeyPath(dataDir);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    const key = readFileSync(path);
    if (key.length === KEY_BYTES) {
      if ((statSync(path).mode & 0o077) !== 0) {
        chmodSync(path, 0o600);
        log?.warn({ path }, 'token key file was readable by others; mode reset to 0600');
      }
      return key;
    }
    log?.warn({ path }, 'token key file is damaged; a new key is created and every session ends');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(KEY_BYTES);
  // A crash leaves no key (a fresh one next start) or the whole key, never half of one.
  writeFileAtomic(path, key);
  return key;
}
