/**
 * A small, independent AV1 RTP reader for tests (AOM "RTP Payload Format for AV1"): RTP header parsing, the
 * aggregation header's Z/Y/W/N, OBU elements put back into the low-overhead format with size fields, and IVF out,
 * so ffmpeg (libdav1d) can judge what a sender put on the wire without any GStreamer receiver in between.
 */

export interface RtpPacket { pt: number; marker: boolean; seq: number; ts: number; ssrc: number; payload: Buffer; raw: Buffer }

export function parseRtp(d: Buffer): RtpPacket {
  const cc = d[0] & 0x0f;
  let off = 12 + 4 * cc;
  if (d[0] & 0x10) off += 4 + 4 * d.readUInt16BE(off + 2);
  const end = d[0] & 0x20 ? d.length - d[d.length - 1] : d.length;
  return { pt: d[1] & 0x7f, marker: (d[1] & 0x80) !== 0, seq: d.readUInt16BE(2), ts: d.readUInt32BE(4), ssrc: d.readUInt32BE(8), payload: d.subarray(off, end), raw: d };
}

/** Splits an RFC 4571 byte stream (2-byte length, then the packet) into packets. */
export function splitRfc4571(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let o = 0; o + 2 <= b.length;) {
    const n = b.readUInt16BE(o);
    out.push(b.subarray(o + 2, o + 2 + n));
    o += 2 + n;
  }
  return out;
}

function leb128(b: Buffer, o: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const x = b[o + i];
    if (x === undefined) throw new Error('truncated leb128');
    v += (x & 0x7f) * 2 ** (7 * i);
    if (!(x & 0x80)) return [v, i + 1];
  }
  throw new Error('leb128 too long');
}

function leb128Bytes(v: number): Buffer {
  const out: number[] = [];
  do {
    let x = v & 0x7f;
    v = Math.floor(v / 128);
    if (v) x |= 0x80;
    out.push(x);
  } while (v);
  return Buffer.from(out);
}

/** An OBU as carried (size field usually stripped) back in the low-overhead format. */
function withSize(obu: Buffer): Buffer {
  const hdr = obu[0];
  if (hdr & 0x02) return obu;
  const hl = hdr & 0x04 ? 2 : 1;
  return Buffer.concat([Buffer.from([hdr | 0x02]), obu.subarray(1, hl), leb128Bytes(obu.length - hl), obu.subarray(hl)]);
}

export interface TemporalUnit { ts: number; key: boolean; obus: Buffer[] }

/**
 * Depayloads one AV1 RTP stream (packets of one payload type, in order). Throws on anything a correct sender
 * does not produce: a sequence gap, a continuation without its start, a marker inside a fragment, a bad length.
 */
export function depayloadAv1(packets: RtpPacket[]): TemporalUnit[] {
  const tus: TemporalUnit[] = [];
  let cur: TemporalUnit | undefined;
  let frag: Buffer[] | undefined;
  let prev: number | undefined;
  for (const p of packets) {
    if (prev !== undefined && ((p.seq - prev + 65536) % 65536) !== 1) throw new Error(`sequence gap before ${p.seq}`);
    prev = p.seq;
    if (cur && cur.ts !== p.ts) throw new Error(`TU at ${cur.ts} ended without a marker`);
    cur ??= { ts: p.ts, key: false, obus: [] };
    const pl = p.payload;
    const agg = pl[0];
    const z = (agg & 0x80) !== 0, y = (agg & 0x40) !== 0, w = (agg >> 4) & 3;
    if (agg & 0x08) cur.key = true;
    for (let o = 1, i = 0; o < pl.length; i++) {
      let len: number;
      if (w && i === w - 1) len = pl.length - o;
      else {
        const [v, n] = leb128(pl, o);
        o += n;
        len = v;
      }
      if (o + len > pl.length) throw new Error(`element longer than packet ${p.seq}`);
      const el = pl.subarray(o, o + len);
      o += len;
      const last = o >= pl.length;
      if (i === 0 && z) {
        if (!frag) throw new Error(`continuation without its start in ${p.seq}`);
        frag.push(el);
        if (!(last && y)) {
          cur.obus.push(withSize(Buffer.concat(frag)));
          frag = undefined;
        }
      } else if (last && y) frag = [el];
      else cur.obus.push(withSize(el));
    }
    if (p.marker) {
      if (frag) throw new Error(`marker inside a fragmented OBU in ${p.seq}`);
      tus.push(cur);
      cur = undefined;
    }
  }
  return tus;
}

/** IVF (what ffmpeg reads AV1 from), each TU with a temporal delimiter, from the first key TU on. */
export function ivf(tus: TemporalUnit[], width: number, height: number): Buffer {
  const from = Math.max(0, tus.findIndex((t) => t.key));
  const parts: Buffer[] = [];
  const h = Buffer.alloc(32);
  h.write('DKIF', 0);
  h.writeUInt16LE(32, 6);
  h.write('AV01', 8);
  h.writeUInt16LE(width, 12);
  h.writeUInt16LE(height, 14);
  h.writeUInt32LE(90000, 16);
  h.writeUInt32LE(1, 20);
  h.writeUInt32LE(tus.length - from, 24);
  parts.push(h);
  for (const tu of tus.slice(from)) {
    const data = Buffer.concat([Buffer.from([0x12, 0x00]), ...tu.obus]);
    const fh = Buffer.alloc(12);
    fh.writeUInt32LE(data.length, 0);
    fh.writeBigUInt64LE(BigInt((tu.ts - tus[from].ts) >>> 0), 4);
    parts.push(fh, data);
  }
  return Buffer.concat(parts);
}
