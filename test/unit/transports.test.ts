/**
 * Transport figures and errors as the engine host makes them (core/engine/transports.ts), from GstStructure text
 * (core/engine/gst-structure.ts). The texts are what GStreamer 1.22's srtsink wrote on this machine: a listener
 * with one caller (its figures nested, one escaped structure per caller), a caller, an idle listener.
 */
import { describe, expect, it } from 'vitest';
import { parseStructure } from '../../core/engine/gst-structure';
import { transportError, transportFigures } from '../../core/engine/transports';
import type { TransportStats } from '../../core/sdk';

const LISTENER = "application/x-srt-statistics, callers=(GValueArray)< \"application/x-srt-statistics\\,\\ packets-sent\\=\\(gint64\\)298\\,\\ packets-sent-lost\\=\\(int\\)0\\,\\ packets-retransmitted\\=\\(int\\)0\\,\\ packet-ack-received\\=\\(int\\)68\\,\\ packet-nack-received\\=\\(int\\)0\\,\\ send-duration-us\\=\\(guint64\\)844292\\,\\ bytes-sent\\=\\(guint64\\)403024\\,\\ bytes-retransmitted\\=\\(guint64\\)0\\,\\ bytes-sent-dropped\\=\\(guint64\\)0\\,\\ packets-sent-dropped\\=\\(int\\)0\\,\\ send-rate-mbps\\=\\(double\\)1.7345294992328499\\,\\ negotiated-latency-ms\\=\\(int\\)125\\,\\ packets-received\\=\\(gint64\\)0\\,\\ packets-received-lost\\=\\(int\\)0\\,\\ packet-ack-sent\\=\\(int\\)0\\,\\ packet-nack-sent\\=\\(int\\)0\\,\\ bytes-received\\=\\(guint64\\)0\\,\\ bytes-received-lost\\=\\(guint64\\)0\\,\\ receive-rate-mbps\\=\\(double\\)0\\,\\ bandwidth-mbps\\=\\(double\\)11.916\\,\\ rtt-ms\\=\\(double\\)0.094\\,\\ caller-address\\=\\(GSocketAddress\\)NULL\\;\" >, bytes-sent-total=(guint64)389912;";
const CALLER = "application/x-srt-statistics, packets-sent=(gint64)313, packets-sent-lost=(int)0, packets-retransmitted=(int)0, packet-ack-received=(int)70, packet-nack-received=(int)0, send-duration-us=(guint64)1107772, bytes-sent=(guint64)423424, bytes-retransmitted=(guint64)0, bytes-sent-dropped=(guint64)0, packets-sent-dropped=(int)0, send-rate-mbps=(double)1.6933370125533387, negotiated-latency-ms=(int)125, packets-received=(gint64)0, packets-received-lost=(int)0, packet-ack-sent=(int)0, packet-nack-sent=(int)0, bytes-received=(guint64)0, bytes-received-lost=(guint64)0, receive-rate-mbps=(double)0, bandwidth-mbps=(double)12.119999999999999, rtt-ms=(double)0.60299999999999998, bytes-sent-total=(guint64)409652;";
const IDLE = 'application/x-srt-statistics, bytes-sent-total=(guint64)0;';

const SPEC: TransportStats = {
  property: 'stats',
  figures: {
    rtt_ms: { field: 'rtt-ms', combine: 'max' },
    packets_sent: { field: 'packets-sent' },
    send_rate_kbps: { field: 'send-rate-mbps', scale: 1000 },
    bytes_sent: { field: 'bytes-sent-total' },
    not_reported: { field: 'packets-received-retransmitted' },
  },
  peers: { field: 'callers', count: 'connections' },
};

describe('parseStructure', () => {
  it('reads typed fields: integers, doubles, NULL', () => {
    const s = parseStructure(CALLER)!;
    expect(s.name).toBe('application/x-srt-statistics');
    expect(s.fields['packets-sent']).toBe(313);
    expect(s.fields['rtt-ms']).toBeCloseTo(0.603, 6);
    expect(s.fields['bytes-sent-total']).toBe(409652);
  });

  it('reads a list of nested structures as their texts, each parseable', () => {
    const s = parseStructure(LISTENER)!;
    const callers = s.fields.callers as string[];
    expect(callers).toHaveLength(1);
    const caller = parseStructure(callers[0])!;
    expect(caller.fields['packets-sent']).toBe(298);
    expect(caller.fields['caller-address']).toBeNull();
    expect(s.fields['bytes-sent-total']).toBe(389912);
  });

  it('reads quoted and escaped strings, booleans and plain lists', () => {
    const s = parseStructure('x, a=(string)"hello\\\\ \\"w\\", b", b=(boolean)true, c=(string)plain\\ text, d=< (int)1, (int)2 >, e={ 1, 2 };')!;
    expect(s.fields).toEqual({ a: 'hello\\ "w", b', b: true, c: 'plain text', d: [1, 2], e: ['1', '2'] });
  });

  it('is null for what is not a structure', () => {
    expect(parseStructure('')).toBeNull();
    expect(parseStructure('a=b')).toBeNull();
    expect(parseStructure('x, novalue')).toBeNull();
  });
});

describe('transportFigures', () => {
  it('a listener: figures combined across its callers, counted', () => {
    expect(transportFigures(SPEC, LISTENER)).toEqual({ rtt_ms: 0.094, packets_sent: 298, send_rate_kbps: 1734.529, bytes_sent: 389912, connections: 1 });
  });

  it('two callers: counts summed, the round trip at its worst', () => {
    const two = LISTENER.replace('callers=(GValueArray)< "', 'callers=(GValueArray)< "application/x-srt-statistics\\,\\ packets-sent\\=\\(gint64\\)2\\,\\ rtt-ms\\=\\(double\\)7.5\\;", "');
    expect(transportFigures(SPEC, two)).toMatchObject({ rtt_ms: 7.5, packets_sent: 300, connections: 2 });
  });

  it('a caller: its own figures at the top level', () => {
    expect(transportFigures(SPEC, CALLER)).toEqual({ rtt_ms: 0.603, packets_sent: 313, send_rate_kbps: 1693.337, bytes_sent: 409652, connections: 0 });
  });

  it('nobody connected: what is reported, nothing made up', () => {
    expect(transportFigures(SPEC, IDLE)).toEqual({ bytes_sent: 0, connections: 0 });
    expect(transportFigures({ ...SPEC, peers: undefined }, IDLE)).toEqual({ bytes_sent: 0 });
    expect(transportFigures(SPEC, null)).toBeNull();
  });
});

describe('transportError', () => {
  const t = { element: 'src', errorContext: 'SRT source (caller to 127.0.0.1:9000)' };

  it('prefers the element\'s own reason to GStreamer\'s generic text, with the plugin\'s context', () => {
    const debug = '../ext/srt/gstsrtsrc.c(206): gst_srt_src_fill (): /GstPipeline:pipeline0/GstSRTSrc:src:\nFailed to authenticate: Incorrect passphrase';
    expect(transportError(t, 'Could not read from resource.', debug)).toBe('SRT source (caller to 127.0.0.1:9000): Failed to authenticate: Incorrect passphrase');
  });

  it('keeps the message when the debug string has no reason of its own', () => {
    const debug = '../ext/srt/gstsrtsink.c(205): gst_srt_sink_render (): /GstPipeline:pipeline0/GstSRTSink:s';
    expect(transportError(t, 'Failed to write to SRT socket: Connection does not exist', debug))
      .toBe('SRT source (caller to 127.0.0.1:9000): Failed to write to SRT socket: Connection does not exist');
    expect(transportError({ element: 'x' }, 'boom', '')).toBe('boom');
  });
});
