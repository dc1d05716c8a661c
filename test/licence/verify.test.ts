/** The licence verifier and gate (core/licence/licence.ts) against keys generated now. */
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { licenceGate, loadLicence, publicKey, verifyLicence } from '../../core/licence/licence';
import { licenceFiles, licenceText, vendor } from './sign';

const v = vendor();
const key = publicKey(v.publicPem);
const PAYLOAD = { licensee: 'ACME Surveillance', codecs: ['h264', 'codec2'], max_streams: 2, expires_at: '2099-01-01T00:00:00Z' };

describe('verifyLicence', () => {
  it('accepts a licence signed by the vendor key', () => {
    expect(verifyLicence(licenceText(v, PAYLOAD), key)).toEqual({ ok: true, payload: PAYLOAD });
  });

  it('refuses a payload changed after signing', () => {
    const doc = JSON.parse(licenceText(v, PAYLOAD));
    doc.payload = Buffer.from(JSON.stringify({ ...PAYLOAD, max_streams: 200 })).toString('base64');
    expect(verifyLicence(JSON.stringify(doc), key)).toEqual({ ok: false, reason: 'the licence signature does not verify' });
  });

  it('refuses a licence signed by another key', () => {
    expect(verifyLicence(licenceText(vendor(), PAYLOAD), key)).toEqual({ ok: false, reason: 'the licence signature does not verify' });
  });

  it.each([
    ['not JSON', 'nope', 'the licence file is not JSON'],
    ['not an object', '[]', 'the licence file must be a JSON object'],
    ['no payload', '{"signature":"AAAA"}', 'payload must be a base64 string'],
    ['bad base64', '{"payload":"***","signature":"AAAA"}', 'payload is not valid base64'],
    ['no signature', '{"payload":"AAAA"}', 'signature must be a base64 string'],
  ])('%s', (_name, text, reason) => {
    expect(verifyLicence(text, key)).toEqual({ ok: false, reason });
  });

  it.each([
    [{ codecs: ['h264'], max_streams: 1 }, 'payload.licensee must be a non-empty string'],
    [{ licensee: 'x', codecs: 'h264', max_streams: 1 }, 'payload.codecs must be an array of codec names'],
    [{ licensee: 'x', codecs: [], max_streams: -1 }, 'payload.max_streams must be an integer of at least 0'],
    [{ licensee: 'x', codecs: [], max_streams: 1, expires_at: 'soon' }, 'payload.expires_at must be an ISO 8601 timestamp'],
  ])('a signed but malformed payload fails closed: %j', (payload, reason) => {
    expect(verifyLicence(licenceText(v, payload), key)).toEqual({ ok: false, reason });
  });

  it('the key must be Ed25519', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => publicKey(rsa)).toThrow('the licence key is rsa, not Ed25519');
  });
});

describe('licenceGate', () => {
  it('grants the listed codecs and the stream count', () => {
    const gate = licenceGate(verifyLicence(licenceText(v, PAYLOAD), key));
    expect(gate.unlicensed(['h264', 'h265', 'codec2', 'av1'])).toEqual(['h265', 'av1']);
    expect(gate.maxStreams()).toBe(2);
    expect(gate.problem?.()).toBeNull();
    expect(gate.describe()).toEqual({ status: 'valid', ...PAYLOAD });
  });

  it('expires at expires_at: from then on nothing encodes', () => {
    let now = Date.parse('2098-12-31T23:59:59Z');
    const gate = licenceGate(verifyLicence(licenceText(v, PAYLOAD), key), () => now);
    expect(gate.unlicensed(['h264'])).toEqual([]);
    now = Date.parse(PAYLOAD.expires_at);
    expect(gate.unlicensed(['h264'])).toEqual(['h264']);
    expect(gate.maxStreams()).toBe(0);
    expect(gate.describe()).toMatchObject({ status: 'expired', reason: 'licence expired at 2099-01-01T00:00:00Z', licensee: 'ACME Surveillance' });
  });

  it('an invalid licence grants nothing and shows nothing it claims', () => {
    const gate = licenceGate({ ok: false, reason: 'the licence signature does not verify' });
    expect(gate.unlicensed(['h264'])).toEqual(['h264']);
    expect(gate.maxStreams()).toBe(0);
    expect(gate.describe()).toEqual({
      status: 'invalid', reason: 'licence invalid: the licence signature does not verify', licensee: null, codecs: [], max_streams: 0, expires_at: null,
    });
  });

  it('loadLicence fails closed on a missing key, a missing file or an unreadable key', () => {
    const files = licenceFiles(v, licenceText(v, PAYLOAD));
    expect(loadLicence(files.licence, files.key).problem?.()).toBeNull();
    expect(loadLicence(files.licence, null).problem?.()).toContain('--licence-key');
    expect(loadLicence(`${files.licence}.missing`, files.key).problem?.()).toContain('cannot read the licence file');
    writeFileSync(files.key, 'not a key');
    expect(loadLicence(files.licence, files.key).problem?.()).toContain('cannot use the licence key');
  });
});
