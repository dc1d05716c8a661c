/** Golden tests of the pure macro scanner, checker and expander (core/compose/macros.ts). */
import { describe, expect, it } from 'vitest';
import { expandMacros, resolveMacros, scanMacros, type MacroDeclaration } from '../../core/compose/macros';

const DECLS: Record<string, MacroDeclaration> = {
  h264: { tag: 'h264', attributes: { bitrate: { min: 5, max: 5000, default: 500 } } },
  codec2: { tag: 'codec2', attributes: { mode: { oneOf: [3200, 2400, 1600, 1400, 1300, 1200], default: 2400 } } },
};
const resolve = (text: string) => resolveMacros(text, (t) => DECLS[t], Object.keys(DECLS));
const expand = (text: string) => {
  const r = resolve(text);
  expect(r.errors).toEqual([]);
  return expandMacros(text, r.macros, (m) => `ENC(${m.tag}:${Object.entries(m.values).map(([k, v]) => `${k}=${v}`).join(',')})`);
};

describe('macro expansion (golden)', () => {
  it.each([
    ['videotestsrc ! <svc:h264 /> ! fakesink', 'videotestsrc ! ENC(h264:bitrate=500) ! fakesink'],
    ['videotestsrc ! <svc:h264/> ! fakesink', 'videotestsrc ! ENC(h264:bitrate=500) ! fakesink'],
    ['videotestsrc ! <svc:h264 bitrate=800 /> ! fakesink', 'videotestsrc ! ENC(h264:bitrate=800) ! fakesink'],
    ['videotestsrc ! <svc:h264 bitrate="5" /> ! fakesink', 'videotestsrc ! ENC(h264:bitrate=5) ! fakesink'],
    ["videotestsrc ! <svc:h264   bitrate='5000'/> ! fakesink", 'videotestsrc ! ENC(h264:bitrate=5000) ! fakesink'],
    ['a ! <svc:h264\n  bitrate=700\n/> ! b', 'a ! ENC(h264:bitrate=700) ! b'],
    ['v ! <svc:h264 /> ! m.  a ! <svc:codec2 mode=1200 /> ! m.  a2 ! <svc:codec2 /> ! x', 'v ! ENC(h264:bitrate=500) ! m.  a ! ENC(codec2:mode=1200) ! m.  a2 ! ENC(codec2:mode=2400) ! x'],
    ['no macros at all ! fakesink', 'no macros at all ! fakesink'],
    ['filesink location="<svc is not a macro>"', 'filesink location="<svc is not a macro>"'],
  ])('%j', (input, output) => {
    expect(expand(input)).toBe(output);
  });

  it('keeps positions of every use, in order', () => {
    const text = 'x ! <svc:h264 /> ! y ! <svc:codec2 mode=3200 />';
    expect(scanMacros(text).uses.map((u) => [u.tag, u.start, u.end, u.text])).toEqual([
      ['h264', 4, 16, '<svc:h264 />'],
      ['codec2', 23, 47, '<svc:codec2 mode=3200 />'],
    ]);
  });
});

describe('macro errors name the macro (golden)', () => {
  it.each([
    ['a ! <svc:h264 bitrate=0 /> ! b', 'raw_pipeline macro <svc:h264 bitrate=0 />: bitrate must be between 5 and 5000'],
    ['a ! <svc:h264 bitrate=5001 /> ! b', 'raw_pipeline macro <svc:h264 bitrate=5001 />: bitrate must be between 5 and 5000'],
    ['a ! <svc:h264 bitrate=abc /> ! b', 'raw_pipeline macro <svc:h264 bitrate=abc />: bitrate must be an integer between 5 and 5000'],
    ['a ! <svc:h264 bitrate=-5 /> ! b', 'raw_pipeline macro <svc:h264 bitrate=-5 />: bitrate must be an integer between 5 and 5000'],
    ['a ! <svc:h264 bitrate=8.5 /> ! b', 'raw_pipeline macro <svc:h264 bitrate=8.5 />: bitrate must be an integer between 5 and 5000'],
    ['a ! <svc:h264 bitrate="" /> ! b', 'raw_pipeline macro <svc:h264 bitrate="" />: bitrate must be an integer between 5 and 5000'],
    ['a ! <svc:codec2 mode=999 /> ! b', 'raw_pipeline macro <svc:codec2 mode=999 />: mode must be one of 3200, 2400, 1600, 1400, 1300, 1200'],
    ['a ! <svc:h264 speed=3 /> ! b', 'raw_pipeline macro <svc:h264 speed=3 />: unknown attribute speed; svc:h264 takes bitrate'],
    ['a ! <svc:mpeg2 /> ! b', 'raw_pipeline macro <svc:mpeg2 />: unknown macro svc:mpeg2; known macros are svc:h264, svc:codec2'],
    ['a ! <svc:h264 bitrate=5 bitrate=6 /> ! b', 'raw_pipeline macro <svc:h264 bitrate=5 bitrate=6 />: attribute bitrate is given twice'],
    ['a ! <svc:h264 bitrate=500> ! b', 'raw_pipeline macro <svc:h264 bitrate=500>: must be self-closing: end it with "/>"'],
    ['a ! <svc:h264 bitrate=500', 'raw_pipeline macro <svc:h264 bitrate=500: is not closed with "/>"'],
    ['a ! <svc: /> ! b', 'raw_pipeline macro <svc: />: a macro needs a name after "svc:"'],
    ['a ! <svc:h264 bitrate /> ! b', 'raw_pipeline macro <svc:h264 bitrate />: attributes must be written name=value'],
  ])('%j', (input, message) => {
    expect(resolve(input).errors).toEqual([message]);
  });

  it('goes on after a broken macro', () => {
    const r = resolve('<svc:h264 bitrate=1 > ! <svc:h264 bitrate=2 />');
    expect(r.errors).toEqual([
      'raw_pipeline macro <svc:h264 bitrate=1 >: must be self-closing: end it with "/>"',
      'raw_pipeline macro <svc:h264 bitrate=2 />: bitrate must be between 5 and 5000',
    ]);
  });

  it('reports every bad macro of a pipeline, and none of the good ones', () => {
    const r = resolve('<svc:h264 bitrate=0 /> ! <svc:h264 /> ! <svc:codec2 mode=1 />');
    expect(r.errors).toHaveLength(2);
    expect(r.macros.map((m) => m.tag)).toEqual(['h264']);
  });
});
