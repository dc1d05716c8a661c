/** Test-time vendor keys and licences: an Ed25519 key pair made per test run, licences signed with it. */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Vendor {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicPem: string;
}

export function vendor(): Vendor {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** The licence file text for payload, signed by v (or with the signature bytes given). */
export function licenceText(v: Vendor, payload: object, opts: { signature?: Buffer; payloadBytes?: Buffer } = {}): string {
  const bytes = opts.payloadBytes ?? Buffer.from(JSON.stringify(payload), 'utf8');
  const signature = opts.signature ?? sign(null, bytes, v.privateKey);
  return JSON.stringify({ payload: bytes.toString('base64'), signature: signature.toString('base64') });
}

/** Writes the licence and the vendor's public key into a fresh folder; returns the two paths. */
export function licenceFiles(v: Vendor, text: string): { licence: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'encoderd-licence-'));
  const licence = join(dir, 'licence.json');
  const key = join(dir, 'vendor.pem');
  writeFileSync(licence, text);
  writeFileSync(key, v.publicPem);
  return { licence, key };
}
