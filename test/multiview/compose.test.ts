/**
 * Multiview composition is pure: golden descriptions, the layout, the rotate/mirror table, and the real GStreamer
 * parser reading a hostile label back as exactly itself.
 */
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { composePipeline } from '../../core/compose';
import { composeMultiview, flipDirection, fontSize, layoutProblem, multiviewLayout, textMargin } from '../../core/compose/multiview';
import { PluginRegistry } from '../../core/plugins/registry';
import { loadNative } from '../../core/engine/native';
import type { PipelineDefinition } from '../../core/pipeline/model';

const registry = new PluginRegistry();
for (const p of builtinPlugins) registry.register(p);
const settings = { rtspLatencyMs: 200 };

const base: PipelineDefinition = {
  id: 'mv',
  mode: 'multiview',
  on_demand: false,
  inputs: [{ source: { uri: 'test://red' } }],
  encoding: { codec: 'av1', bitrate: 300, width: 320, height: 240, fps: 10, quality: 5 },
  output: { uri: '/tmp/mv.mkv' },
};

const AV1 = 'capsfilter caps="video/x-raw,format=I420" ! av1enc name="venc" usage-profile="realtime" end-usage="cbr" cpu-used=8 '
  + 'target-bitrate=300 min-quantizer=0 max-quantizer=63 keyframe-max-dist=20 row-mt=true ! av1parse ! '
  + 'capsfilter caps="video/x-av1,stream-format=obu-stream,alignment=tu"';
const FRAMEGRAB = 'fgtee. ! queue leaky="downstream" max-size-buffers=2 ! valve name="fgvalve" drop=true drop-mode="forward-sticky-events" ! videorate drop-only=true ! '
  + 'capsfilter name="fgrate" caps="video/x-raw,framerate=1/1" ! jpegenc name="fgjpeg" ! appsink name="fgsink" sync=false async=false max-buffers=4 drop=true';

describe('multiviewLayout', () => {
  it('1 full frame, 2 side by side, 3–4 a 2×2 grid; odd sizes give the extra pixel to the right and lower cells', () => {
    expect(multiviewLayout(1, 320, 240)).toEqual([{ x: 0, y: 0, width: 320, height: 240 }]);
    expect(multiviewLayout(2, 320, 240)).toEqual([{ x: 0, y: 0, width: 160, height: 240 }, { x: 160, y: 0, width: 160, height: 240 }]);
    expect(multiviewLayout(3, 320, 240)).toEqual([
      { x: 0, y: 0, width: 160, height: 120 }, { x: 160, y: 0, width: 160, height: 120 }, { x: 0, y: 120, width: 160, height: 120 },
    ]);
    expect(multiviewLayout(4, 321, 241)[3]).toEqual({ x: 160, y: 120, width: 161, height: 121 });
  });

  it('a frame too small for its cells is a problem named by field', () => {
    expect(layoutProblem(2, 1, 100)).toBe('encoding.width must be at least 2 for 2 inputs');
    expect(layoutProblem(3, 2, 1)).toBe('encoding.height must be at least 2 for 3 inputs');
    expect(layoutProblem(1, 1, 1)).toBeNull();
    expect(() => composeMultiview({ ...base, inputs: [base.inputs![0], base.inputs![0]], encoding: { ...base.encoding!, width: 1 } }, registry, settings))
      .toThrow('encoding.width must be at least 2 for 2 inputs');
  });
});

describe('flipDirection', () => {
  it('rotates clockwise, then mirrors the rotated picture left to right', () => {
    expect(flipDirection()).toBeUndefined();
    expect(flipDirection(0, false)).toBeUndefined();
    expect(flipDirection(90)).toBe('90r');
    expect(flipDirection(180)).toBe('180');
    expect(flipDirection(270)).toBe('90l');
    expect(flipDirection(0, true)).toBe('horiz');
    expect(flipDirection(90, true)).toBe('ul-lr');
    expect(flipDirection(180, true)).toBe('vert');
    expect(flipDirection(270, true)).toBe('ur-ll');
  });

  it('text and its margin grow with the cell', () => {
    expect([fontSize(60), fontSize(120), fontSize(720)]).toEqual([6, 8, 45]);
    expect([textMargin(60), textMargin(120), textMargin(720)]).toEqual([2, 3, 18]);
  });
});

describe('composeMultiview', () => {
  it('one input: full frame, AV1 at quality 5 whatever the definition says, framegrab tee before the encoder', () => {
    const c = composePipeline({ ...base, encoding: { ...base.encoding!, codec: 'h264', quality: 9 } }, registry, settings);
    expect(c.description).toBe(
      'matroskamux name="mux" ! filesink name="filesink" location="/tmp/mv.mkv" '
      + 'compositor name="mix" background="black" sink_0::xpos=0 sink_0::ypos=0 ! '
      + 'capsfilter caps="video/x-raw,width=320,height=240,framerate=10/1,pixel-aspect-ratio=1/1" ! tee name="fgtee" ! queue ! '
      + `${AV1} ! queue ! mux. `
      + 'videotestsrc name="src" is-live=true pattern="red" ! queue ! videoconvert ! videoscale ! '
      + 'capsfilter caps="video/x-raw,width=320,height=240,pixel-aspect-ratio=1/1" ! mix.sink_0 '
      + FRAMEGRAB,
    );
    expect(c.encoderElement).toBe('venc');
    expect(c.features).toEqual(['av1']);
    expect(c.finaliseWithEos).toBe(true);
    expect(c.framegrab?.sink).toBe('fgsink');
    // The engine host counts each input at its compositor pad, the composed picture and the encoded frames.
    expect(c.meters).toEqual({
      frames: { element: 'venc', pad: 'src' }, source: { element: 'mix', pad: 'src' }, inputs: [{ element: 'mix', pad: 'sink_0' }], internalSinks: ['fgsink'],
    });
  });

  it('three inputs in a 2×2 grid with crop, rotate + mirror, grayscale, label, text and timestamp', () => {
    const c = composeMultiview({
      ...base,
      inputs: [
        {
          source: { uri: 'test://red' }, label: 'Gate 4', crop: { top: 10, left: 4 },
          transform: { rotate: 90, mirror: true, grayscale: true }, overlay: { text: 'north', timestamp: true },
        },
        { source: { uri: 'test://green' }, overlay: { text: 'east' } },
        { source: { uri: 'test://blue' }, transform: { rotate: 0, mirror: false }, crop: { top: 0 } },
      ],
    }, registry, settings);
    const font = 'font-desc="Sans 8" auto-resize=false shaded-background=true halignment="left" line-alignment="left" xpad=3 ypad=3';
    expect(c.description).toBe(
      'matroskamux name="mux" ! filesink name="filesink" location="/tmp/mv.mkv" '
      + 'compositor name="mix" background="black" sink_0::xpos=0 sink_0::ypos=0 sink_1::xpos=160 sink_1::ypos=0 sink_2::xpos=0 sink_2::ypos=120 ! '
      + 'capsfilter caps="video/x-raw,width=320,height=240,framerate=10/1,pixel-aspect-ratio=1/1" ! tee name="fgtee" ! queue ! '
      + `${AV1} ! queue ! mux. `
      + 'videotestsrc name="src" is-live=true pattern="red" ! queue ! videoconvert ! '
      + 'videocrop name="crop" top=10 right=0 bottom=0 left=4 ! videoflip name="flip" video-direction="ul-lr" ! '
      + 'videobalance name="gray" saturation=0 ! videoscale ! capsfilter caps="video/x-raw,width=160,height=120,pixel-aspect-ratio=1/1" ! '
      + `textoverlay name="label" text="Gate 4" valignment="top" ${font} ! `
      + `clockoverlay name="clock" text="north" time-format="%Y-%m-%d %H:%M:%S" valignment="bottom" ${font} ! mix.sink_0 `
      + 'videotestsrc name="src2" is-live=true pattern="green" ! queue ! videoconvert ! videoscale ! '
      + 'capsfilter caps="video/x-raw,width=160,height=120,pixel-aspect-ratio=1/1" ! '
      + `textoverlay name="text" text="east" valignment="bottom" ${font} ! mix.sink_1 `
      + 'videotestsrc name="src3" is-live=true pattern="blue" ! queue ! videoconvert ! videoscale ! '
      + 'capsfilter caps="video/x-raw,width=160,height=120,pixel-aspect-ratio=1/1" ! mix.sink_2 '
      + FRAMEGRAB,
    );
  });

  it('on demand over RTSP: the launch is the whole description and there is no framegrab branch', () => {
    const c = composeMultiview({ ...base, on_demand: true, output: { uri: 'rtsp://127.0.0.1:8554/mv' } }, registry, settings);
    expect(c.framegrab).toBeUndefined();
    expect(c.description).not.toContain('fgtee');
    expect(c.services?.[0]).toMatchObject({ mode: 'launch', launch: `( ${c.description} )` });
  });

  it('file and UDP inputs: each file has its own looping companion, losses of every input are watched', () => {
    const c = composeMultiview({
      ...base,
      inputs: [{ source: { uri: 'file:///etc/os-release' } }, { source: { uri: 'file:///etc/hostname' } }, { source: { uri: 'udp://127.0.0.1:5000' } }],
    }, registry, settings);
    expect(c.companions).toHaveLength(2);
    expect(c.companions![0]).toContain('channel="fileloop"');
    expect(c.companions![1]).toContain('channel="fileloop2"');
    expect(c.lossMessages).toEqual(['GstUDPSrcTimeout']);
    expect(c.finite).toBe(false);
  });

  it('a hostile label and overlay text reach GStreamer as exactly themselves', () => {
    const label = '" ! filesink location=/tmp/x name=evil';
    const text = 'a\\" ! fakesink "b';
    const c = composeMultiview({ ...base, inputs: [{ source: { uri: 'test://red' }, label, overlay: { text } }] }, registry, settings);
    const native = loadNative();
    const p = new native.Pipeline(c.description, () => undefined);
    try {
      expect(p.getProperty('label', 'text')).toBe(label);
      expect(p.getProperty('text', 'text')).toBe(text);
      expect(p.elements().map((e) => e.factory)).not.toContain('fakesink');
      expect(p.elements().map((e) => e.name)).not.toContain('evil');
    } finally {
      p.destroy();
    }
  });
});
