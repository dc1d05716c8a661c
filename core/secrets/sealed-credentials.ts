/**
 * Credentials inside URIs (`rtsp://user:pass@camera/…`, also inside an advanced description) must not sit in
 * plaintext in stored documents. Before a document is stored, every string that carries `user:pass@` is replaced
 * by `{$sealed: …}`; reading opens them again. So is every string the store's predicate calls secret: the service's
 * seals a URI with secrets its plugin reports (a transport's passphrase, a push output's stream key; core/secrets/uri-secrets.ts).
 * Everything else stays readable, so an operator can still inspect a stored pipeline.
 */
import type { Store } from '../store/json-store';
import type { Sealed, SecretBox } from './secret-box';

// Linear on any text: the scheme is bounded (RFC 3986 names are short) and the user name ends at its first ':' (a
// user name has none). Unbounded, each letter of a long run began a scan to its end, and storing a 40 kB
// description took 0.7 s of the event loop; 64 kB after one "a://" took 2.4 s.
const CREDENTIALS = /[a-z][a-z0-9+.-]{0,31}:\/\/[^/@\s"':]*:[^/@\s"']*@/i;

interface SealedString {
  $sealed: Sealed;
}

function isSealed(v: unknown): v is SealedString {
  return typeof v === 'object' && v !== null && '$sealed' in v && Object.keys(v).length === 1;
}

export function sealCredentials<T>(doc: T, box: SecretBox, context: string, isSecret?: (text: string) => boolean): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return CREDENTIALS.test(v) || isSecret?.(v) ? { $sealed: box.seal(v, context) } : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(doc) as T;
}

/** Throws when a sealed value was made with another key or for another document. */
export function openCredentials<T>(doc: T, box: SecretBox, context: string): T {
  const walk = (v: unknown): unknown => {
    if (isSealed(v)) return box.open<string>(v.$sealed, context);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(doc) as T;
}

/** A Store whose documents are sealed on write and opened on read: the manager never sees the difference. */
export class CredentialSealingStore implements Store {
  constructor(private readonly inner: Store, private readonly box: SecretBox, private readonly isSecret?: (text: string) => boolean) {}

  read<T>(collection: string, name: string): T | undefined {
    const doc = this.inner.read<T>(collection, name);
    return doc === undefined ? undefined : openCredentials(doc, this.box, `${collection}/${name}`);
  }

  write(collection: string, name: string, value: unknown): void {
    this.inner.write(collection, name, sealCredentials(value, this.box, `${collection}/${name}`, this.isSecret));
  }

  remove(collection: string, name: string): void {
    this.inner.remove(collection, name);
  }

  list(collection: string): string[] {
    return this.inner.list(collection);
  }
}
