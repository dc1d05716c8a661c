/**
 * Session tokens: 256 random bits, base64url, valid 24 hours (spec). Only HMAC-SHA256(key, token) is kept, in
 * memory and in the store's `auth/sessions` document, so sessions survive a restart while no token is ever on
 * disk. Looking a digest up in a Map is not constant-time, which is fine: an attacker cannot choose digests,
 * only tokens, and the key hides which token maps where.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../store/json-store';

export const TOKEN_BYTES = 32;
export const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Oldest sessions are dropped beyond this many (a bound on the document and on memory). */
export const MAX_SESSIONS = 256;
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface SessionRecord {
  digest: string;
  issued_at: string;
  expires_at: string;
}

interface SessionsDocument {
  version: 1;
  sessions: SessionRecord[];
}

const COLLECTION = 'auth';
const DOCUMENT = 'sessions';

export class Sessions {
  private readonly byDigest = new Map<string, SessionRecord>();

  constructor(private readonly store: Store, private readonly key: Buffer, private readonly now: () => number = Date.now) {
    const doc = store.read<SessionsDocument>(COLLECTION, DOCUMENT);
    for (const s of doc?.sessions ?? []) if (typeof s?.digest === 'string' && typeof s.expires_at === 'string') this.byDigest.set(s.digest, s);
    if (this.sweep() > 0) this.save();
  }

  digest(token: string): string {
    return createHmac('sha256', this.key).update(token, 'utf8').digest('hex');
  }

  /** A new session: the token goes to the client, only its digest is kept. */
  issue(): { token: string; expires_at: string; digest: string } {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const now = this.now();
    const record: SessionRecord = { digest: this.digest(token), issued_at: new Date(now).toISOString(), expires_at: new Date(now + TOKEN_LIFETIME_MS).toISOString() };
    this.sweep();
    this.byDigest.set(record.digest, record);
    while (this.byDigest.size > MAX_SESSIONS) this.byDigest.delete(this.byDigest.keys().next().value as string);
    this.save();
    return { token, expires_at: record.expires_at, digest: record.digest };
  }

  /** The digest of a live session for this token, or null. */
  check(token: string | undefined): string | null {
    if (!token || !TOKEN_FORM.test(token)) return null;
    const digest = this.digest(token);
    const record = this.byDigest.get(digest);
    if (!record) return null;
    if (Date.parse(record.expires_at) <= this.now()) {
      this.byDigest.delete(digest);
      try {
        this.save();
      } catch {
        // A full data dir must not turn every request with an old token into a 507: the answer is 401 either way,
        // and an expired session left in the store is swept at the next start or save.
      }
      return null;
    }
    return digest;
  }

  revoke(digest: string): void {
    if (this.byDigest.delete(digest)) this.save();
  }

  /** Ends every session except keep (the caller's own, when it changes the password). */
  revokeAll(keep?: string | null): void {
    const kept = keep ? this.byDigest.get(keep) : undefined;
    this.byDigest.clear();
    if (kept) this.byDigest.set(kept.digest, kept);
    this.save();
  }

  /** Drops expired sessions; returns how many. */
  sweep(): number {
    const now = this.now();
    let removed = 0;
    for (const [digest, s] of this.byDigest) {
      if (!(Date.parse(s.expires_at) > now)) {
        this.byDigest.delete(digest);
        removed++;
      }
    }
    return removed;
  }

  sweepAndSave(): void {
    if (this.sweep() > 0) this.save();
  }

  count(): number {
    return this.byDigest.size;
  }

  private save(): void {
    const doc: SessionsDocument = { version: 1, sessions: [...this.byDigest.values()] };
    this.store.write(COLLECTION, DOCUMENT, doc);
  }
}
