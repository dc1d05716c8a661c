/**
 * Authentication state: the password (argon2id hash in the store's `auth/password` document) and the sessions.
 * No password = auth disabled and every endpoint open (spec). Decisions beyond the spec (docs/security.md):
 * changing the password ends every other session and keeps the caller's; removing it ends all sessions.
 * Session changes are written before the password document, so a crash in between errs on the safe side.
 * API keys are independent of the password: setting, changing or removing it leaves them as they are (they are
 * revoked one by one); while no password is set they grant nothing more than an open service already does.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/json-store';
import type { ApiKeyCreated, ApiKeys } from './api-keys';
import { hashPassword, verifyPassword } from './password';
import { Sessions } from './sessions';

interface PasswordDocument {
  algorithm: 'argon2id';
  hash: string;
  set_at: string;
}

const COLLECTION = 'auth';
const DOCUMENT = 'password';
const SWEEP_INTERVAL_MS = 10 * 60_000;

export class AuthService {
  private password: PasswordDocument | undefined;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly store: Store, readonly sessions: Sessions, readonly keys: ApiKeys, private readonly log: Logger) {
    const doc = store.read<PasswordDocument>(COLLECTION, DOCUMENT);
    this.password = typeof doc?.hash === 'string' ? doc : undefined;
    this.sweeper = setInterval(() => this.sessions.sweepAndSave(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  enabled(): boolean {
    return this.password !== undefined;
  }

  /** A token for the right password; null otherwise (also when no password is set: nothing can match). */
  async login(password: string): Promise<{ token: string; expires_at: string } | null> {
    const current = this.password;
    if (!current || !(await verifyPassword(current.hash, password))) return null;
    if (this.password !== current) return null;
    const { token, expires_at } = this.sessions.issue();
    this.log.info('login: session started');
    return { token, expires_at };
  }

  /**
   * Sets or changes the password. callerDigest is the caller's session (null when setting the first one).
   * Returns false when a first password was set by someone else while this one was being hashed.
   */
  async setPassword(password: string, callerDigest: string | null): Promise<boolean> {
    const before = this.password;
    const hash = await hashPassword(password);
    if (this.password !== before) return false;
    this.sessions.revokeAll(callerDigest);
    const doc: PasswordDocument = { algorithm: 'argon2id', hash, set_at: new Date().toISOString() };
    this.store.write(COLLECTION, DOCUMENT, doc);
    this.password = doc;
    this.log.info({ first: before === undefined }, before ? 'password changed; other sessions ended' : 'password set; authentication enabled');
    return true;
  }

  removePassword(): void {
    this.sessions.revokeAll();
    this.store.remove(COLLECTION, DOCUMENT);
    const had = this.password !== undefined;
    this.password = undefined;
    if (had) this.log.info('password removed; authentication disabled');
  }

  /** The response is the only place the key ever appears; the log gets its id and name. */
  createKey(name: string): ApiKeyCreated {
    const created = this.keys.create(name);
    this.log.info({ id: created.id, name, auth_enabled: this.enabled() }, 'API key created');
    return created;
  }

  revokeKey(id: string): void {
    const name = this.keys.revoke(id);
    this.log.info({ id, name }, 'API key revoked');
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
