// ST 0601 golden tests: the vectors of dataplane-findings §3.1 (the standard's example and jmisb's tests).
import { describe, expect, it } from 'vitest';
import {
  checksum, decodeSt0601, encodeAltitude, encodeHeading, encodeLatitude, encodeLongitude, encodeSt0601, UAS_LS_KEY,
} from '../../core/klv/st0601';
import { mgrsValid, st0601Packet, toPosition } from '../../core/klv/geolocation';

describe('ST 0601 encodings', () => {
  it('checksum of the standard example is 0xb4fd', () => {
    expect(checksum(Buffer.from('060E2B34020081BB', 'hex'))).toBe(0xb4fd);
  });
  it('latitude, longitude, heading and altitude match the vectors', () => {
    expect(encodeLatitude(60.1768229669783).toString('hex')).toBe('5595b66d');
    expect(encodeLongitude(128.426759042045).toString('hex')).toBe('5b5360c4');
    expect(encodeHeading(159.974365).toString('hex')).toBe('71c2');
    expect(encodeAltitude(14190.72).toString('hex')).toBe('c221');
  });
});

describe('ST 0601 local set', () => {
  const values = { timestampUs: 1700000000123456n, latitude: 48.1234567, longitude: -11.7654321, altitude: 512.5, heading: 271.25 };
  const packet = encodeSt0601(values);

  it('starts with the UAS key and a BER length that covers the rest; timestamp first, checksum last', () => {
    expect(packet.subarray(0, 16).equals(UAS_LS_KEY)).toBe(true);
    expect(packet[16]).toBe(packet.length - 17);
    expect(packet.subarray(17, 19).toString('hex')).toBe('0208');
    expect(packet.subarray(packet.length - 4, packet.length - 2).toString('hex')).toBe('0102');
    expect(packet.readUInt16BE(packet.length - 2)).toBe(checksum(packet, packet.length - 2));
  });

  it('decodes back within the encodings precision', () => {
    const d = decodeSt0601(packet);
    expect(d.checksumOk).toBe(true);
    expect(d.timestampUs).toBe(values.timestampUs);
    expect(d.latitude).toBeCloseTo(values.latitude, 7);
    expect(d.longitude).toBeCloseTo(values.longitude, 7);
    expect(Math.abs(d.heading! - values.heading)).toBeLessThan(360 / 65535);
    expect(Math.abs(d.altitude! - values.altitude)).toBeLessThan(19900 / 65535);
    expect(d.version).toBe(19);
    expect(d.other).toEqual({});
  });

  it('reports a corrupted packet as a bad checksum, and refuses what is not a local set', () => {
    const bad = Buffer.from(packet);
    bad[25] ^= 0x01;
    expect(decodeSt0601(bad).checksumOk).toBe(false);
    expect(() => decodeSt0601(Buffer.from('00112233', 'hex'))).toThrow(/Local Set/);
    expect(() => decodeSt0601(packet.subarray(0, 30))).toThrow(/truncated|overruns/);
  });

  it('keeps items it does not interpret, BER-OID tags included', () => {
    // key, length n: tag 3 "AB", tag 200 (0x81 0x48) one byte 0x7f, version 19
    const raw = Buffer.concat([UAS_LS_KEY, Buffer.from('0a' + '03024142' + '8148017f' + '410113', 'hex')]);
    raw[16] = raw.length - 17;
    const d = decodeSt0601(raw);
    expect(d.other).toEqual({ 3: '4142', 200: '7f' });
    expect(d.version).toBe(19);
    expect(d.checksumOk).toBe(false);
  });
});

describe('geolocation to ST 0601', () => {
  it('converts MGRS to the centre of its square', () => {
    const p = toPosition({ mgrs: '33UXP0500444998', heading: 90 });
    expect(p.latitude).toBeCloseTo(48.2495, 3);
    expect(p.longitude).toBeCloseTo(16.4145, 3);
    expect(p.heading).toBe(90);
    expect(mgrsValid('33UXP0500444998')).toBe(true);
    expect(mgrsValid('ZZZ')).toBe(false);
  });
  it('a packet without a position carries only the time stamp and version', () => {
    const d = decodeSt0601(st0601Packet(null, 1700000000000));
    expect(d.timestampUs).toBe(1700000000000000n);
    expect(d.latitude).toBeUndefined();
    expect(d.checksumOk).toBe(true);
  });
});
