/**
 * Secrets at rest (webhook headers, credentials inside stored pipeline URIs) are sealed before they reach the store:
 * AES-256-GCM with a random 96-bit nonce per document and the webhook id as associated data (a sealed blob
 * copied onto another webhook does not open). The key is 32 random bytes in <data>/secrets/webhook-headers.key
 * (mode 0600 in a 0700 directory), created on first use.
 *
 * What this buys: a copy of the webhooks documents alone (a backup, a support bundle, a log of the store)
 * leaks no header. What it cannot buy: someone who can read the whole data dir as the service user can
 * read the key too. docs/webhooks.md says so.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-file';

export interface Sealed {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Opens the key file under dataDir, creating it (atomically, 0600) when it does not exist. */
  static open(dataDir: string, name = 'webhook-headers.key'): SecretBox {
    const dir = join(dataDir, 'secrets');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, name);
    try {
      return new SecretBox(checkKey(readFileSync(file), file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const key = randomBytes(32);
    writeFileAtomic(file, key);
    return new SecretBox(key);
  }

  static fromKey(key: Buffer): SecretBox {
    return new SecretBox(checkKey(key, 'key'));
  }

  seal(plain: unknown, context: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
    return { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  /** Throws when the blob was sealed with another key or for another context, or was altered. */
  open<T>(sealed: Sealed, context: string): T {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }
}

function checkKey(key: Buffer, where: string): Buffer {
  if (key.length !== 32) throw new Error(`${where}: a secret key must be exactly 32 bytes, found ${key.length}`);
  return key;
}
