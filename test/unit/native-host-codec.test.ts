/**
 * The core's side of the native engine host's protocol (core/engine/native-host.ts): base64 for binary fields, the
 * transports' wording of errors and figures from the texts the host sends, and the KLV packet the host stamps. The
 * stamping is the host's (native/host/klv-pacer.c); it is done here the same way to show the packet stays valid.
 */
import { describe, expect, it } from 'vitest';
import { klvPacket, NativeHostCodec } from '../../core/engine/native-host';
import type { HostCommand, HostMessage } from '../../core/engine/protocol';
import type { SideTransport } from '../../core/engine/transports';
import { checksum, decodeSt0601 } from '../../core/klv/st0601';

const SRT: SideTransport = {
  side: 'output',
  element: 'srtout',
  errorContext: 'SRT output',
  stats: { property: 'stats', figures: { rtt_ms: { field: 'rtt-ms' } } },
};

function play(transports: SideTransport[] = [SRT]): HostCommand {
  return { op: 'play', description: 'fakesrc ! fakesink', timeoutMs: 1000, meters: { internalSinks: [], transports } };
}

/** What klv-pacer.c does before a push: the timestamp at stampAt, then the checksum over all but the last 2 bytes. */
function stamp(packet: Buffer, at: number, us: bigint): Buffer {
  const out = Buffer.from(packet);
  out.writeBigUInt64BE(us, at);
  out.writeUInt16BE(checksum(out, out.length - 2), out.length - 2);
  return out;
}

describe('NativeHostCodec', () => {
  it('sends push data as base64 and gives sample data back as bytes', () => {
    const codec = new NativeHostCodec();
    const sent = codec.encode(1, { op: 'push', appsrc: 'src', data: new Uint8Array([1, 2, 3]), ptsNs: 5 }) as { cmd: { data: string } };
    expect(sent.cmd.data).toBe('AQID');
    const got = codec.decode({ event: 'sample', sink: 'a', data: 'AQID', pts: 7 }) as Extract<HostMessage, { event: 'sample' }>;
    expect([...got.data]).toEqual([1, 2, 3]);
    expect(got.pts).toBe(7);
  });

  it('words a transport element\'s error event and a failed play\'s cause with the plugin\'s context', () => {
    const codec = new NativeHostCodec();
    codec.encode(2, play());
    const ev = codec.decode({ event: 'error', source: 'srtout', message: 'Could not write.', debug: 'x.c(1): f (): /p:\nConnection refused' });
    expect((ev as { message: string }).message).toBe('SRT output: Connection refused');
    const other = codec.decode({ event: 'error', source: 'enc', message: 'Encoder broke.', debug: '' });
    expect((other as { message: string }).message).toBe('Encoder broke.');
    const reply = codec.decode({ id: 2, ok: false, error: { code: 'NG_ERR_STATE', message: 'state change to playing failed: Could not write.', cause: { source: 'srtout', message: 'Could not write.', debug: 'x\nIncorrect passphrase' } } });
    expect(reply).toEqual({ id: 2, ok: false, error: { code: 'NG_ERR_STATE', message: 'state change to playing failed: Could not write.: SRT output: Incorrect passphrase' } });
  });

  it('words a probe\'s cause with the probe\'s own transports', () => {
    const codec = new NativeHostCodec();
    codec.encode(3, { op: 'probe', description: 'x', sink: 'probe', timeoutMs: 100, transports: [{ ...SRT, side: 'source', element: 'srcin', errorContext: 'SRT source' }] });
    const reply = codec.decode({ id: 3, ok: false, error: { code: 'NG_ERR_STATE', message: 'the source could not be read', cause: { source: 'srcin', message: 'm', debug: 'd\nNo route' } } });
    expect((reply as { error: { message: string } }).error.message).toBe('the source could not be read: SRT source: No route');
  });

  it('turns the transports\' property texts of a stats sample into their figures', () => {
    const codec = new NativeHostCodec();
    codec.encode(4, play());
    const base = { atMs: 1, frames: 1, bytes: 2, sourceFrames: null, inputs: [], qosDropped: 0, rateDropped: null, rateDuplicated: null, latencyNs: null, rtspClients: null };
    const ev = codec.decode({ event: 'stats', sample: { ...base, transportText: ['application/x-srt-statistics, rtt-ms=(double)1.5;'] } });
    expect(ev).toEqual({ event: 'stats', sample: { ...base, transport: { output: { rtt_ms: 1.5 } } } });
    expect(codec.decode({ event: 'stats', sample: { ...base, transportText: [null] } })).toEqual({ event: 'stats', sample: base });
  });
});

describe('klvPacket', () => {
  it('encodes the position with the offset of the timestamp value; stamped there, the packet decodes with a good checksum', () => {
    const k = klvPacket({ latitude: 48.85, longitude: 2.35, altitude: 35 });
    expect(k.positioned).toBe(true);
    const stamped = stamp(Buffer.from(k.packet, 'base64'), k.stampAt, 1_790_000_000_000_000n);
    const d = decodeSt0601(stamped);
    expect(d.checksumOk).toBe(true);
    expect(d.timestampUs).toBe(1_790_000_000_000_000n);
    expect(d.latitude).toBeCloseTo(48.85, 4);
  });

  it('without a position: the minimal set, not positioned', () => {
    const k = klvPacket(null);
    expect(k.positioned).toBe(false);
    const d = decodeSt0601(stamp(Buffer.from(k.packet, 'base64'), k.stampAt, 5n));
    expect(d.checksumOk).toBe(true);
    expect(d.latitude).toBeUndefined();
  });

  it('the play and klv commands carry it in place of the position', () => {
    const codec = new NativeHostCodec();
    const sent = codec.encode(5, { ...play([]), klv: { appsrc: 'klvsrc', position: null, stamp: 'ahead' } } as HostCommand) as { cmd: { klv: Record<string, unknown> } };
    expect(sent.cmd.klv).toMatchObject({ appsrc: 'klvsrc', stamp: 'ahead', positioned: false });
    expect(sent.cmd.klv.position).toBeUndefined();
    expect(codec.encode(6, { op: 'klv', position: { latitude: 1, longitude: 2 } })).toMatchObject({ cmd: { op: 'klv', positioned: true } });
  });
});
