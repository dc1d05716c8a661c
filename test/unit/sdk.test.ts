/** The serializer and URI helpers every plugin relies on. */
import { describe, expect, it } from 'vitest';
import { caps, definePlugin, element, gstString, isMulticast, parseHostPort, filePath, extension } from '../../core/sdk';

describe('quote', () => {
  it('escapes quotes and backslashes, keeps everything else literal', () => {
    expect(gstString('a b')).toBe('"a b"');
    expect(gstString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(gstString('x ! y name=z\n')).toBe('"x ! y name=z\n"');
    expect(() => gstString('a\0b')).toThrow(/NUL/);
  });
  it('refuses non-identifiers as factories, keys and caps tokens', () => {
    expect(() => element('x264enc ! fakesink')).toThrow();
    expect(() => element('x264enc', { 'bitrate=1 name': 5 })).toThrow();
    expect(() => caps('video/x-raw', { format: 'I420 ! x' })).toThrow();
    expect(() => element('x', { n: Number.NaN })).toThrow();
    expect(element('udpsink', { host: '::1', port: 5 })).toBe('udpsink host="::1" port=5');
  });
});

describe('uri', () => {
  it('parses host:port, iface@ and IPv6', () => {
    expect(parseHostPort('udp://127.0.0.1:5000', 'udp')).toEqual({ host: '127.0.0.1', port: 5000 });
    expect(parseHostPort('udp://lo@239.0.0.1:5000', 'udp')).toEqual({ host: '239.0.0.1', port: 5000, iface: 'lo' });
    expect(parseHostPort('tcp://[::1]:7000', 'tcp')).toEqual({ host: '::1', port: 7000 });
    expect(parseHostPort('udp://host:70000', 'udp')).toBeNull();
    expect(parseHostPort('udp://a b:5', 'udp')).toBeNull();
    expect(parseHostPort('udp://x"y:5', 'udp')).toBeNull();
  });
  it('knows multicast, file paths and extensions', () => {
    expect(isMulticast('239.1.2.3')).toBe(true);
    expect(isMulticast('127.0.0.1')).toBe(false);
    expect(isMulticast('ff02::1')).toBe(true);
    expect(filePath('file:///tmp/a%20b.ts')).toBe('/tmp/a b.ts');
    expect(filePath('relative.ts')).toBeNull();
    expect(extension('/x/y.MKV')).toBe('mkv');
  });
});

describe('definePlugin', () => {
  it('fails with the plugin name when the shape is wrong', () => {
    expect(() => definePlugin({ kind: 'codec', name: 'broken', version: '1' } as never)).toThrow(/plugin "broken": codec plugins must provide "codec"/);
    expect(() => definePlugin({ kind: 'nope', name: 'x', version: '1' } as never)).toThrow(/plugin "x": kind/);
  });
});
