/**
 * Sessions and the token key with a controlled clock and a real JsonStore in a temp dir: expiry after 24 h,
 * sweeping, the session cap, and the key file's creation, mode and repair.
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SESSIONS, Sessions, TOKEN_LIFETIME_MS } from '../../core/auth/sessions';
import { loadOrCreateTokenKey, tokenKeyPath } from '../../core/auth/token-key';
import { ApiError } from '../../core/errors/catalogue';
import { JsonStore } from '../../core/store/json-store';

const tempDir = () => mkdtempSync(join(tmpdir(), 'encoderd-sessions-'));

describe('Sessions', () => {
  it('expire after 24 hours and are swept from the store', () => {
    const dir = tempDir();
    const store = new JsonStore(dir);
    const key = loadOrCreateTokenKey(dir);
    let now = Date.parse('2026-01-01T00:00:00Z');
    const sessions = new Sessions(store, key, () => now);
    const a = sessions.issue();
    now += 60_000;
    const b = sessions.issue();
    expect(a.expires_at).toBe('2026-01-02T00:00:00.000Z');
    expect(sessions.check(a.token)).toBe(a.digest);
    now = Date.parse('2026-01-01T00:00:00Z') + TOKEN_LIFETIME_MS - 1;
    expect(sessions.check(a.token)).toBe(a.digest);
    now += 1;
    expect(sessions.check(a.token)).toBeNull();
    expect(sessions.check(b.token)).toBe(b.digest);
    expect(store.read<{ sessions: unknown[] }>('auth', 'sessions')!.sessions).toHaveLength(1);
    // A restart a day later drops the rest at load.
    now += 120_000;
    const reloaded = new Sessions(store, key, () => now);
    expect(reloaded.count()).toBe(0);
    expect(store.read<{ sessions: unknown[] }>('auth', 'sessions')!.sessions).toHaveLength(0);
  });

  it('an expired token on a full data dir is still a plain refusal (null), never a storage error', () => {
    const dir = tempDir();
    const store = new JsonStore(dir);
    let now = Date.parse('2026-01-01T00:00:00Z');
    const sessions = new Sessions(store, loadOrCreateTokenKey(dir), () => now);
    const a = sessions.issue();
    now += TOKEN_LIFETIME_MS;
    store.write = () => {
      throw new ApiError('INSUFFICIENT_STORAGE');
    };
    expect(sessions.check(a.token)).toBeNull();
    expect(sessions.count()).toBe(0);
  });

  it('does not accept a token under another key, nor anything not shaped like a token', () => {
    const dir = tempDir();
    const store = new JsonStore(dir);
    const s1 = new Sessions(store, Buffer.alloc(32, 1));
    const { token } = s1.issue();
    expect(new Sessions(store, Buffer.alloc(32, 2)).check(token)).toBeNull();
    for (const t of [undefined, '', 'x', `${token}=`, token.slice(1), `${token.slice(0, 42)}!`]) expect(s1.check(t)).toBeNull();
  });

  it(`keeps at most ${MAX_SESSIONS} sessions, dropping the oldest`, () => {
    const sessions = new Sessions(new JsonStore(tempDir()), Buffer.alloc(32, 3));
    const first = sessions.issue();
    for (let i = 0; i < MAX_SESSIONS; i++) sessions.issue();
    expect(sessions.count()).toBe(MAX_SESSIONS);
    expect(sessions.check(first.token)).toBeNull();
  });
});

describe('token key file', () => {
  it('is 32 random bytes, mode 0600, stable across loads, repaired when damaged or too open', () => {
    const dir = tempDir();
    const key = loadOrCreateTokenKey(dir);
    const path = tokenKeyPath(dir);
    expect(key).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateTokenKey(dir).equals(key)).toBe(true);
    chmodSync(path, 0o644);
    expect(loadOrCreateTokenKey(dir).equals(key)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, 'short');
    const fresh = loadOrCreateTokenKey(dir);
    expect(fresh).toHaveLength(32);
    expect(fresh.equals(key)).toBe(false);
    expect(readFileSync(path).equals(fresh)).toBe(true);
  });
});
