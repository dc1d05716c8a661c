/**
 * The one serializer (core/sdk/quote.ts), golden and against the real parser: every hostile value — `!`,
 * quotes, backslashes, spaces, newlines, `name=` tricks, caps and bin syntax — is parsed by GStreamer (through
 * the addon) as exactly one property value of exactly one element. NUL, which no C string can carry, is refused.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { caps, capsText, element, gstBool, gstInt, gstNumber, gstString } from '../../core/sdk/quote';
import type * as Native from '../../native';

const native: typeof Native = createRequire(__filename)(join(__dirname, '../../native'));

export const HOSTILE = [
  'plain',
  '',
  ' ',
  'two words',
  'a ! fakesink name=injected',
  '" ! filesink location=/tmp/pwned name=x',
  '"',
  '""',
  '"x"',
  '" ! identity name=wrapped ! "',
  '"\\101"',
  'NULL',
  'null',
  "'",
  "' ! identity name=q '",
  'back\\slash',
  'trailing backslash\\',
  '\\" ! identity name=esc !',
  '\\\\" ! identity name=esc2 !',
  'line1\nline2',
  'line1\r\n! identity name=crlf',
  'tab\there',
  'name=evil',
  'x name=evil',
  'x" name="evil',
  'video/x-raw,width=10',
  '( identity name=bin )',
  'udpsink host=1.2.3.4 port=9',
  '{ a, b }',
  '<svc:h264 bitrate=9 />',
  '$HOME `id` $(id)',
  'ünïcödé — 字 🎥',
  '\u202e\u200b',
  'x'.repeat(4096),
];

describe('gstString (golden)', () => {
  it('wraps in double quotes and escapes only " and \\', () => {
    expect(gstString('plain')).toBe('"plain"');
    expect(gstString('')).toBe('""');
    expect(gstString('a ! b')).toBe('"a ! b"');
    expect(gstString('x" ! filesink location=/tmp/pwned name=y')).toBe('"x\\" ! filesink location=/tmp/pwned name=y"');
    expect(gstString('back\\slash')).toBe('"back\\\\slash"');
    expect(gstString('\\"')).toBe('"\\\\\\""');
    expect(gstString('line1\nline2')).toBe('"line1\nline2"');
  });

  it('sends values the string deserializer would reinterpret (NULL, "…") in GStreamer\'s serialized form', () => {
    expect(gstString('NULL')).toBe('"\\"NULL\\""');
    expect(gstString('"x y"')).toBe('"\\"\\\\042x\\\\040y\\\\042\\""');
    expect(gstString('"ü')).toBe('"\\"\\\\042\\\\303\\\\274\\""');
  });

  it('refuses NUL, and numbers that are not finite numbers', () => {
    expect(() => gstString('a\0b')).toThrow(/NUL/);
    expect(() => gstNumber(Number.NaN)).toThrow();
    expect(() => gstNumber(Infinity)).toThrow();
    expect(() => gstNumber('1 ! x' as unknown as number)).toThrow();
    expect(() => gstInt(1.5)).toThrow();
    expect(gstBool(true)).toBe('true');
  });

  it('takes factory, property and caps names only in their plain forms', () => {
    expect(element('filesink', { location: '/a b', sync: false, 'max-bitrate': 5 })).toBe('filesink location="/a b" sync=false max-bitrate=5');
    expect(() => element('filesink ! identity')).toThrow();
    expect(() => element('filesink', { 'location=x y': 'a' })).toThrow();
    expect(() => capsText('video/x-raw ! x')).toThrow();
    expect(() => capsText('video/x-raw', { format: 'I420 ! x' })).toThrow();
    expect(caps('video/x-raw', { format: 'I420', width: 320 })).toBe('capsfilter caps="video/x-raw,format=I420,width=320"');
  });
});

describe('quoted values through the real GStreamer parser', () => {
  beforeAll(() => native.init());

  function parse(description: string): Native.ElementInfo[] {
    const p = new native.Pipeline(description, () => undefined);
    try {
      return p.elements();
    } finally {
      p.destroy();
    }
  }

  it.each(HOSTILE.map((v) => [JSON.stringify(v).slice(0, 60), v]))('%s arrives literally in one element', (_label, value) => {
    const elements = parse(`fakesrc num-buffers=1 ! ${element('filesink', { name: 'sink', location: value })}`);
    expect(elements.map((e) => e.factory).sort()).toEqual(['fakesrc', 'filesink']);
    const sink = elements.find((e) => e.factory === 'filesink')!;
    expect(sink.name).toBe('sink');
    expect(sink.properties.location).toBe(value);
  });

  it.each(HOSTILE.filter((v) => v !== '').map((v) => [JSON.stringify(v).slice(0, 60), v]))('%s as an element name stays one element', (_label, value) => {
    const elements = parse(`fakesrc num-buffers=1 ! ${element('identity', { name: value })} ! fakesink`);
    expect(elements.map((e) => e.factory).sort()).toEqual(['fakesink', 'fakesrc', 'identity']);
    expect(elements.find((e) => e.factory === 'identity')!.name).toBe(value);
  });

  // textoverlay (overlay text, labels) is in gstreamer1.0-plugins-base's pango plugin; skipped only where absent.
  it.skipIf(!hasElement('textoverlay'))('overlay text arrives literally in textoverlay', () => {
    for (const value of HOSTILE) {
      const elements = parse(`videotestsrc num-buffers=1 ! ${element('textoverlay', { name: 'ov', text: value })} ! fakesink`);
      expect(elements.map((e) => e.factory).sort()).toEqual(['fakesink', 'textoverlay', 'videotestsrc']);
      expect(elements.find((e) => e.factory === 'textoverlay')!.properties.text).toBe(value);
    }
  });
});

function hasElement(factory: string): boolean {
  native.init();
  return native.hasElement(factory);
}
