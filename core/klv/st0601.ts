/**
 * MISB ST 0601 (UAS Datalink Local Set): a pure encoder and decoder of the few items the appliance writes and
 * reads. Facts and test vectors: dataplane-findings §3.1 (checked against jmisb and the standard's example).
 * Only the items below are interpreted; any other item survives decoding as raw bytes (hex) under its tag.
 */

/** The 16-byte Universal Key of the UAS Datalink Local Set. */
export const UAS_LS_KEY = Buffer.from('060e2b34020b01010e01030101000000', 'hex');

export const TAG = {
  checksum: 1,
  timestamp: 2,
  heading: 5,
  latitude: 13,
  longitude: 14,
  altitude: 15,
  version: 65,
} as const;

/** The ST 0601 revision written into item 65. */
export const LS_VERSION = 19;

const INT32_MAX = 2 ** 31 - 1;
const UINT16_MAX = 0xffff;
const ALT_MIN = -900;
const ALT_SPAN = 19900;

export interface St0601Values {
  /** Precision Time Stamp, µs since 1970 (MISP time). */
  timestampUs: bigint;
  latitude?: number;
  longitude?: number;
  /** Metres above MSL, -900..19000. */
  altitude?: number;
  /** Degrees, 0..360. */
  heading?: number;
}

export interface St0601Decoded extends Partial<St0601Values> {
  version?: number;
  /** Whether the packet's checksum (item 1) matched its bytes; false when it has none. */
  checksumOk: boolean;
  /** Every item not interpreted above, tag → hex. */
  other: Record<number, string>;
}

/** ST 0601 checksum: a 16-bit running sum, even-index bytes in the high half. */
export function checksum(buf: Uint8Array, length = buf.length): number {
  let bcc = 0;
  for (let i = 0; i < length; i++) bcc = (bcc + (buf[i] << (8 * ((i + 1) % 2)))) & 0xffff;
  return bcc;
}

export function berLength(n: number): Buffer {
  if (n < 128) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

// Every mapping below is the standard's: a linear map of the range onto the integer, rounded to nearest.
export const encodeLatitude = (deg: number) => int32(Math.round((deg / 90) * INT32_MAX));
export const encodeLongitude = (deg: number) => int32(Math.round((deg / 180) * INT32_MAX));
export const encodeHeading = (deg: number) => uint16(Math.round((((deg % 360) + 360) % 360 / 360) * UINT16_MAX));
export const encodeAltitude = (m: number) => uint16(Math.round(((Math.min(Math.max(m, ALT_MIN), ALT_MIN + ALT_SPAN) - ALT_MIN) / ALT_SPAN) * UINT16_MAX));

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}

function uint16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
}

function item(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), berLength(value.length), value]);
}

/** One complete local set: key, length, timestamp first, the values given, version, checksum last. */
export function encodeSt0601(v: St0601Values): Buffer {
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64BE(v.timestampUs);
  const items = [item(TAG.timestamp, ts)];
  if (v.heading !== undefined) items.push(item(TAG.heading, encodeHeading(v.heading)));
  if (v.latitude !== undefined) items.push(item(TAG.latitude, encodeLatitude(v.latitude)));
  if (v.longitude !== undefined) items.push(item(TAG.longitude, encodeLongitude(v.longitude)));
  if (v.altitude !== undefined) items.push(item(TAG.altitude, encodeAltitude(v.altitude)));
  items.push(item(TAG.version, Buffer.from([LS_VERSION])));
  // The checksum covers its own tag and length bytes, so they are part of the body before it is computed.
  const body = Buffer.concat([...items, Buffer.from([TAG.checksum, 2])]);
  const head = Buffer.concat([UAS_LS_KEY, berLength(body.length + 2)]);
  const packet = Buffer.concat([head, body, Buffer.alloc(2)]);
  packet.writeUInt16BE(checksum(packet, packet.length - 2), packet.length - 2);
  return packet;
}

function readBer(buf: Buffer, at: number): { value: number; next: number } {
  const first = buf[at];
  if (first === undefined) throw new Error('truncated length');
  if (first < 128) return { value: first, next: at + 1 };
  const n = first & 0x7f;
  if (n === 0 || n > 4 || at + 1 + n > buf.length) throw new Error('bad BER length');
  let value = 0;
  for (let i = 0; i < n; i++) value = value * 256 + buf[at + 1 + i];
  return { value, next: at + 1 + n };
}

/** Tags above 127 are BER-OID encoded (7 bits per byte, high bit = more). */
function readTag(buf: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = at; i < buf.length && i < at + 4; i++) {
    value = value * 128 + (buf[i] & 0x7f);
    if ((buf[i] & 0x80) === 0) return { value, next: i + 1 };
  }
  throw new Error('bad tag');
}

const ERROR_INT32 = -0x80000000;

/** Decodes one local set; throws on a packet that is not an ST 0601 local set or is truncated. */
export function decodeSt0601(buf: Buffer): St0601Decoded {
  if (buf.length < UAS_LS_KEY.length + 1 || !buf.subarray(0, UAS_LS_KEY.length).equals(UAS_LS_KEY)) throw new Error('not a UAS Datalink Local Set');
  const len = readBer(buf, UAS_LS_KEY.length);
  const end = len.next + len.value;
  if (end > buf.length) throw new Error('truncated local set');
  const out: St0601Decoded = { checksumOk: false, other: {} };
  for (let at = len.next; at < end;) {
    const tag = readTag(buf, at);
    const l = readBer(buf, tag.next);
    const v = buf.subarray(l.next, l.next + l.value);
    if (l.next + l.value > end) throw new Error(`item ${tag.value} overruns the local set`);
    switch (tag.value) {
      case TAG.checksum:
        out.checksumOk = v.length === 2 && v.readUInt16BE(0) === checksum(buf, l.next);
        break;
      case TAG.timestamp:
        if (v.length === 8) out.timestampUs = v.readBigUInt64BE(0);
        break;
      case TAG.heading:
        if (v.length === 2) out.heading = (v.readUInt16BE(0) / UINT16_MAX) * 360;
        break;
      case TAG.latitude:
        if (v.length === 4 && v.readInt32BE(0) !== ERROR_INT32) out.latitude = (v.readInt32BE(0) / INT32_MAX) * 90;
        break;
      case TAG.longitude:
        if (v.length === 4 && v.readInt32BE(0) !== ERROR_INT32) out.longitude = (v.readInt32BE(0) / INT32_MAX) * 180;
        break;
      case TAG.altitude:
        if (v.length === 2) out.altitude = (v.readUInt16BE(0) / UINT16_MAX) * ALT_SPAN + ALT_MIN;
        break;
      case TAG.version:
        if (v.length === 1) out.version = v[0];
        break;
      default:
        out.other[tag.value] = v.toString('hex');
    }
    at = l.next + l.value;
  }
  return out;
}
