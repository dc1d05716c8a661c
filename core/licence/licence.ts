/**
 * The signed licence. The file is `{"payload": base64(UTF-8 JSON), "signature": base64(Ed25519 over the decoded
 * payload bytes)}`; the vendor's public key is SPKI PEM. Verification uses node:crypto only.
 *
 * Fails closed: a licence that cannot be read, does not verify, is malformed or has expired grants nothing (no
 * codec, no stream), and says why. The service keeps serving; only encoding is refused. Expiry is judged at each
 * question, so a licence that runs out while the service is up stops new streams from then on.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LicenceGate } from './gate';

export interface LicencePayload {
  licensee: string;
  /** Licence features, i.e. codec plugins' `licenceFeature` values (h264, h265, av1, codec2, ...). */
  codecs: string[];
  max_streams: number;
  expires_at?: string;
}

export type Verified = { ok: true; payload: LicencePayload } | { ok: false; reason: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function base64(text: unknown, field: string): Buffer | string {
  if (typeof text !== 'string' || !text) return `${field} must be a base64 string`;
  const compact = text.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 !== 0) return `${field} is not valid base64`;
  return Buffer.from(compact, 'base64');
}

function payloadProblem(p: Record<string, unknown>): string | null {
  if (typeof p.licensee !== 'string' || !p.licensee) return 'payload.licensee must be a non-empty string';
  if (!Array.isArray(p.codecs) || !p.codecs.every((c) => typeof c === 'string' && c)) return 'payload.codecs must be an array of codec names';
  if (!Number.isInteger(p.max_streams) || (p.max_streams as number) < 0) return 'payload.max_streams must be an integer of at least 0';
  if (p.expires_at !== undefined && (typeof p.expires_at !== 'string' || Number.isNaN(Date.parse(p.expires_at)))) {
    return 'payload.expires_at must be an ISO 8601 timestamp';
  }
  return null;
}

export function publicKey(pem: string): KeyObject {
  const key = createPublicKey({ key: pem, format: 'pem' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the licence key is ${key.asymmetricKeyType}, not Ed25519`);
  return key;
}

/** Checks the signature first and reads the payload only once it verifies. Pure apart from the crypto. */
export function verifyLicence(licenceText: string, key: KeyObject): Verified {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(licenceText) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'the licence file is not JSON' };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, reason: 'the licence file must be a JSON object' };
  const payload = base64(doc.payload, 'payload');
  if (typeof payload === 'string') return { ok: false, reason: payload };
  const signature = base64(doc.signature, 'signature');
  if (typeof signature === 'string') return { ok: false, reason: signature };
  if (!verify(null, payload, key, signature)) return { ok: false, reason: 'the licence signature does not verify' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, reason: 'the licence payload is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'the licence payload must be a JSON object' };
  const problem = payloadProblem(parsed as Record<string, unknown>);
  if (problem) return { ok: false, reason: problem };
  const p = parsed as LicencePayload;
  return { ok: true, payload: { licensee: p.licensee, codecs: [...p.codecs], max_streams: p.max_streams, ...(p.expires_at ? { expires_at: p.expires_at } : {}) } };
}

/** A gate over a verification result; `now` is injectable so expiry can be tested without waiting. */
export function licenceGate(verified: Verified, now: () => number = Date.now): LicenceGate {
  const problem = (): string | null => {
    if (!verified.ok) return `licence invalid: ${verified.reason}`;
    const exp = verified.payload.expires_at;
    return exp && now() >= Date.parse(exp) ? `licence expired at ${exp}` : null;
  };
  return {
    unlicensed: (features) => (problem() ? [...features] : features.filter((f) => !(verified as { payload: LicencePayload }).payload.codecs.includes(f))),
    maxStreams: () => (problem() ? 0 : (verified as { payload: LicencePayload }).payload.max_streams),
    problem,
    describe() {
      const why = problem();
      if (!verified.ok) {
        return { status: 'invalid', reason: why, licensee: null, codecs: [], max_streams: 0, expires_at: null };
      }
      const p = verified.payload;
      return {
        status: why ? 'expired' : 'valid',
        ...(why ? { reason: why } : {}),
        licensee: p.licensee,
        codecs: p.codecs,
        max_streams: p.max_streams,
        expires_at: p.expires_at ?? null,
      };
    },
  };
}

/** The gate for the configured files; any failure to read or verify is a closed gate that says why. */
export function loadLicence(licencePath: string, keyPath: string | null, now?: () => number): LicenceGate {
  const fail = (reason: string) => licenceGate({ ok: false, reason }, now);
  if (!keyPath) return fail('--licence is set but --licence-key (the vendor public key) is not');
  let key: KeyObject;
  try {
    key = publicKey(readFileSync(keyPath, 'utf8'));
  } catch (err) {
    return fail(`cannot use the licence key ${keyPath}: ${(err as Error).message}`);
  }
  let text: string;
  try {
    text = readFileSync(licencePath, 'utf8');
  } catch (err) {
    return fail(`cannot read the licence file ${licencePath}: ${(err as Error).message}`);
  }
  return licenceGate(verifyLicence(text, key), now);
}
