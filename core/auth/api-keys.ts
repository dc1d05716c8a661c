/**
 * API keys: long-lived bearer credentials for machines (Prometheus, automation) that a 24-hour session does not
 * suit. A key is `edk_` + 32 random bytes in base64url; the prefix tells it apart from a session token and lets
 * secret scanners find leaked ones. Only SHA-256(key) is kept, in the store's `auth/api-keys` document: a plain
 * digest is enough for 256 random bits (nothing to guess), and unlike the sessions' HMAC it does not tie keys to
 * the token key, so rotating that key ends sessions but not the machines' keys. Keys are found by digest in a
 * Map; that lookup is not constant-time, which leaks nothing: an attacker chooses keys, not digests.
 *
 * `last_used_at` is exact in memory; the store gets it only when its stored copy is 10 minutes stale, so a busy
 * scraper costs one write per key per 10 minutes, not one per request, and a restart loses at most that much.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApiError, validationError } from '../errors/catalogue';
import type { Store } from '../store/json-store';

export const API_KEY_PREFIX = 'edk_';
export const API_KEY_BYTES = 32;
export const MAX_API_KEYS = 100;
export const API_KEY_NAME_MAX = 64;
/**
 * Words of letters, digits, `.`, `_`, `-`, separated by single spaces: readable in a list, safe in any log. The
 * empty string matches, so that it is reported once, as empty, by minLength.
 */
export const API_KEY_NAME_PATTERN = '^([A-Za-z0-9._-]+( [A-Za-z0-9._-]+)*)?$';
export const LAST_USED_WRITE_INTERVAL_MS = 10 * 60_000;
const KEY_FORM = /^edk_[A-Za-z0-9_-]{43}$/;
const DIGEST_FORM = /^[0-9a-f]{64}$/;

interface ApiKeyRecord {
  id: string;
  name: string;
  digest: string;
  created_at: string;
  last_used_at: string | null;
}

interface ApiKeysDocument {
  version: 1;
  keys: ApiKeyRecord[];
}

export interface ApiKeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** What creation answers: the only time the key itself leaves the service. */
export interface ApiKeyCreated {
  id: string;
  name: string;
  key: string;
  created_at: string;
}

const COLLECTION = 'auth';
const DOCUMENT = 'api-keys';

function digestOf(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export class ApiKeys {
  /** In creation order (a Map keeps insertion order), so the list needs no sort. */
  private readonly byDigest = new Map<string, ApiKeyRecord>();
  /** last_used_at as the store holds it, per id: the write-when-stale rule compares against this. */
  private readonly storedLastUsed = new Map<string, string | null>();

  constructor(private readonly store: Store, private readonly now: () => number = Date.now) {
    const doc = store.read<ApiKeysDocument>(COLLECTION, DOCUMENT);
    for (const k of doc?.keys ?? []) {
      if (typeof k?.id !== 'string' || typeof k.name !== 'string' || typeof k.created_at !== 'string' || typeof k.digest !== 'string' || !DIGEST_FORM.test(k.digest)) continue;
      const record: ApiKeyRecord = { id: k.id, name: k.name, digest: k.digest, created_at: k.created_at, last_used_at: typeof k.last_used_at === 'string' ? k.last_used_at : null };
      this.byDigest.set(record.digest, record);
      this.storedLastUsed.set(record.id, record.last_used_at);
    }
  }

  /** A new key for a validated name. Written to the store before it exists in memory: a key that works is a stored one. */
  create(name: string): ApiKeyCreated {
    if (this.byDigest.size >= MAX_API_KEYS) {
      throw validationError([`at most ${MAX_API_KEYS} API keys can exist; revoke one first`]);
    }
    const key = API_KEY_PREFIX + randomBytes(API_KEY_BYTES).toString('base64url');
    const record: ApiKeyRecord = { id: randomUUID(), name, digest: digestOf(key), created_at: new Date(this.now()).toISOString(), last_used_at: null };
    this.save([...this.byDigest.values(), record]);
    this.byDigest.set(record.digest, record);
    return { id: record.id, name, key, created_at: record.created_at };
  }

  list(): ApiKeyView[] {
    return [...this.byDigest.values()].map((k) => ({ id: k.id, name: k.name, created_at: k.created_at, last_used_at: k.last_used_at }));
  }

  /** Revokes the key with this id; 404 NOT_FOUND when there is none. Returns its name (for the log). */
  revoke(id: string): string {
    const record = [...this.byDigest.values()].find((k) => k.id === id);
    if (!record) throw new ApiError('NOT_FOUND', `API key "${id}" not found`);
    this.save([...this.byDigest.values()].filter((k) => k !== record));
    this.byDigest.delete(record.digest);
    this.storedLastUsed.delete(record.id);
    return record.name;
  }

  /** The id of the key this bearer token is, or null. Records the use. */
  check(token: string | undefined): string | null {
    if (!token || !KEY_FORM.test(token)) return null;
    const record = this.byDigest.get(digestOf(token));
    if (!record) return null;
    const now = this.now();
    record.last_used_at = new Date(now).toISOString();
    const stored = this.storedLastUsed.get(record.id);
    if (!stored || now - Date.parse(stored) >= LAST_USED_WRITE_INTERVAL_MS) {
      try {
        this.save([...this.byDigest.values()]);
      } catch {
        // A timestamp that cannot be written must not refuse a valid key; the next use tries again.
      }
    }
    return record.id;
  }

  count(): number {
    return this.byDigest.size;
  }

  private save(records: ApiKeyRecord[]): void {
    const doc: ApiKeysDocument = { version: 1, keys: records };
    this.store.write(COLLECTION, DOCUMENT, doc);
    for (const k of records) this.storedLastUsed.set(k.id, k.last_used_at);
  }
}
