/** Composition is pure: golden descriptions for the built-in simple-mode paths. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { CodecRefusedError, composeSimple } from '../../core/compose';
import { loadPluginFolder } from '../../core/plugins/loader';
import { PluginRegistry } from '../../core/plugins/registry';
import type { PipelineDefinition } from '../../core/pipeline/model';
import type { AudioSpec } from '../../core/sdk';
import { ROOT } from '../helpers/service';

const registry = new PluginRegistry();
for (const p of builtinPlugins) registry.register(p);

const base: PipelineDefinition = {
  id: 'g1',
  mode: 'simple',
  on_demand: false,
  source: { uri: 'test://ball' },
  encoding: { codec: 'h264', bitrate: 800, width: 640, height: 360, fps: 30, quality: 5 },
  output: { uri: '/tmp/out.mp4' },
};

describe('composeSimple', () => {
  it('test source → h264 → mp4 file', () => {
    const c = composeSimple(base, registry, { rtspLatencyMs: 200 });
    expect(c.description).toBe(
      'mp4mux name="mux" fragment-duration=1000 ! filesink name="filesink" location="/tmp/out.mp4" '
      + 'videotestsrc name="src" is-live=true pattern="ball" ! queue name="srcmeter" ! videoconvert ! videoscale ! videorate name="rate" ! '
      + 'capsfilter caps="video/x-raw,width=640,height=360,framerate=30/1" ! tee name="fgtee" ! queue ! capsfilter caps="video/x-raw,format=I420" ! '
      + 'x264enc name="venc" bitrate=800 tune="zerolatency" speed-preset="veryfast" key-int-max=60 ! '
      + 'capsfilter caps="video/x-h264,profile=high" ! h264parse ! queue ! mux. '
      // the framegrab branch (docs/framegrabs.md), closed until framegrabs start
      + 'fgtee. ! queue leaky="downstream" max-size-buffers=2 ! valve name="fgvalve" drop=true drop-mode="forward-sticky-events" ! videorate drop-only=true ! '
      + 'capsfilter name="fgrate" caps="video/x-raw,framerate=1/1" ! jpegenc name="fgjpeg" ! '
      + 'appsink name="fgsink" sync=false async=false max-buffers=4 drop=true',
    );
    expect(c.finaliseWithEos).toBe(true);
    expect(c.encoderElement).toBe('venc');
    // Where the engine host counts: encoded frames, the source's frames, the videorate; the framegrab sink is not output.
    expect(c.meters).toEqual({
      frames: { element: 'venc', pad: 'src' }, source: { element: 'srcmeter', pad: 'sink' }, rate: 'rate', internalSinks: ['fgsink'],
    });
    expect(c.features).toEqual(['h264']);
  });

  it('udp multicast on an interface', () => {
    const c = composeSimple({ ...base, output: { uri: 'udp://lo@239.1.1.1:5000' } }, registry, { rtspLatencyMs: 200 });
    expect(c.description.startsWith('mpegtsmux name="mux" alignment=7 ! udpsink name="udpsink" host="239.1.1.1" port=5000 auto-multicast=true multicast-iface="lo" ttl-mc=1 ')).toBe(true);
    expect(c.finaliseWithEos).toBe(false);
  });

  it('quotes a hostile file path so it stays one property value', () => {
    const c = composeSimple({ ...base, output: { uri: '/tmp/a" ! fakesink name=x "b.ts' } }, registry, { rtspLatencyMs: 200 });
    expect(c.description).toContain('location="/tmp/a\\" ! fakesink name=x \\"b.ts"');
  });
});

describe('composeSimple: passthrough (no encoding)', () => {
  const pt: PipelineDefinition = { id: 'p1', mode: 'simple', on_demand: false, source: { uri: 'rtsp://127.0.0.1:8554/cam' }, output: { uri: '/tmp/out.ts' } };

  it('with the codec not yet known, composes only the probe: the source fragment into an appsink', () => {
    const c = composeSimple(pt, registry, { rtspLatencyMs: 200 });
    expect(c.description).toBe('');
    expect(c.features).toEqual([]);
    expect(c.probe).toEqual({
      sink: 'probe',
      description: 'rtspsrc name="src" location="rtsp://127.0.0.1:8554/cam" latency=200 buffer-mode="none" max-ts-offset=1 ! capsfilter caps="application/x-rtp,media=video" ! '
        + 'parsebin name="parse" ! capsfilter caps="video/x-h264;video/x-h265;video/x-av1" ! appsink name="probe" sync=false',
    });
  });

  it('with the probed codec, picks that stream and converts it with the codec\'s passthrough parser in front of the muxer', () => {
    const c = composeSimple(pt, registry, { rtspLatencyMs: 200 }, 'h264');
    expect(c.probe).toBeUndefined();
    expect(c.description).toBe(
      'mpegtsmux name="mux" ! filesink name="filesink" location="/tmp/out.ts" '
      + 'rtspsrc name="src" location="rtsp://127.0.0.1:8554/cam" latency=200 buffer-mode="none" max-ts-offset=1 ! capsfilter caps="application/x-rtp,media=video" ! '
      + 'parsebin name="parse" ! capsfilter caps="video/x-h264" ! identity name="srcmeter" silent=true ! h264parse config-interval=-1 ! '
      // The relay's timing guard: a passed-through DTS never repeats or goes back (docs/dataplane.md, "Timing").
      + 'dtsguard name="dtsguard" ! valve name="eosgate" drop-mode="forward-sticky-events" ! queue ! mux. '
      // The KLV stream the engine host feeds, relaying the source's KLV track (docs/klv.md).
      + 'appsrc name="klvsrc" is-live=true do-timestamp=false format="time" caps="meta/x-klv,parsed=true" max-buffers=50 leaky-type="downstream" ! queue ! mux. '
      + 'src. ! capsfilter caps="application/x-rtp,media=application,encoding-name=SMPTE336M" ! rtpklvdepay ! capsfilter caps="meta/x-klv" ! '
      + 'queue leaky="downstream" max-size-buffers=30 ! appsink name="klvsink" sync=false async=false max-buffers=30 drop=true',
    );
    expect(c.klvInjector).toBe('klvsrc');
    expect(c.klvSink).toBe('klvsink');
    expect(c.klvStamp).toBe('ahead');
    expect(c.features).toEqual([]);
    expect(c.encoderElement).toBeUndefined();
  });

  it('into a local RTSP server, the feed payloads the probed codec', () => {
    const c = composeSimple({ ...pt, output: { uri: 'rtsp://0.0.0.0:8554/live' } }, registry, { rtspLatencyMs: 200 }, 'h265');
    expect(c.description).toContain('capsfilter caps="video/x-h265" ! identity name="srcmeter" silent=true ! h265parse config-interval=-1 ! dtsguard name="dtsguard" ! queue ! appsink name="rtsp_feed0"');
    expect(c.services?.[0]).toMatchObject({
      mode: 'feed',
      feeds: [{ appsink: 'rtsp_feed0', launch: 'h265parse ! rtph265pay name="pay0" pt=96 config-interval=-1' }, { appsink: 'rtsp_feed1', launch: 'rtpklvpay name="pay1" pt=97' }],
    });
    expect(c.sdp).toContain('a=rtpmap:96 H265/90000');
    expect(c.sdp).toContain('m=application 0 RTP/AVP 97\r\na=rtpmap:97 SMPTE336M/90000');
    expect(c.klvStamp).toBe('due');
  });

  it('a probed codec the output cannot carry is refused with the output\'s own message', () => {
    expect(() => composeSimple(pt, registry, { rtspLatencyMs: 200 }, 'av1')).toThrow("the source's video is av1: output.uri: a .ts file cannot carry av1");
    // Of its own kind, with the output's messages, so the manager answers it as the client's mistake without reading it.
    let thrown: unknown;
    try {
      composeSimple(pt, registry, { rtspLatencyMs: 200 }, 'av1');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CodecRefusedError);
    expect((thrown as CodecRefusedError).codec).toBe('av1');
    expect((thrown as CodecRefusedError).errors).toEqual(['output.uri: a .ts file cannot carry av1']);
  });
});

describe('composeSimple: the extraction of a source\'s KLV', () => {
  it('a file\'s, read ahead while it prerolls, is queued whole; a live source\'s is leaky', () => {
    const file = composeSimple({ ...base, source: { uri: 'file:///tmp/with-klv.ts' } }, registry, { rtspLatencyMs: 200 });
    expect(file.companions?.[0]).toContain(
      'capsfilter caps="meta/x-klv" ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! appsink name="klvsink" sync=true');
    expect(file.companionSinks).toEqual([['klvsink']]);
    const live = composeSimple({ ...base, source: { uri: 'udp://127.0.0.1:5000' } }, registry, { rtspLatencyMs: 200 });
    expect(live.description).toContain(
      'capsfilter caps="meta/x-klv" ! queue leaky="downstream" max-size-buffers=30 ! appsink name="klvsink" sync=false');
  });
});

describe('composeSimple: audio in its codec\'s own format (CodecPlugin.rawAudio)', () => {
  const withOpus = new PluginRegistry();
  for (const p of [...builtinPlugins, loadPluginFolder(join(ROOT, 'examples/plugins/opus'))]) withOpus.register(p);
  const filtersOn: AudioSpec = { source: 'stream', test_wave: 0, noise_filter: true, noise_suppression: true, noise_suppression_level: 2, auto_gain_control: true };
  const talk: PipelineDefinition = {
    ...base, source: { uri: 'file:///tmp/talk.mkv' }, output: { uri: 'rtsp://0.0.0.0:8554/live' },
    encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
  };
  const DSP = 'webrtcdsp name="adsp" echo-cancel=false high-pass-filter=false noise-suppression=true noise-suppression-level="moderate" gain-control=true';
  const raw = (rate: number) => `capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=${rate},channels=1"`;
  /** The audio branch: from the file reader's hand-over to the RTSP output's audio feed. */
  const branch = (description: string) => /interaudiosrc .*? appsink name="rtsp_feed1"/.exec(description)?.[0];

  it('Codec2: handed over, filtered and encoded at 8 kHz mono', () => {
    const c = composeSimple({ ...talk, audio: { ...filtersOn, codec2_mode: 2400 } }, withOpus, { rtspLatencyMs: 200 });
    expect(branch(c.description)).toBe(
      `interaudiosrc name="fileaudio" channel="fileaudio" ! ${raw(8000)} ! queue ! audioconvert ! audioresample ! `
      + 'audiocheblimit name="ahighpass" mode="high-pass" cutoff=200 poles=4 ! audioconvert ! audioresample ! '
      + `${raw(8000)} ! ${DSP} ! audioconvert ! audioresample ! ${raw(8000)} ! codec2enc name="aenc" mode=2400 ! queue ! appsink name="rtsp_feed1"`,
    );
    expect(c.companions?.[0]).toContain(`audioconvert ! audioresample ! ${raw(8000)} ! interaudiosink`);
  });

  it('Opus (the example plugin): handed over, filtered and encoded at 48 kHz mono, never narrowed to 8 kHz', () => {
    const c = composeSimple({ ...talk, audio: { ...filtersOn, codec: 'opus', opus_bitrate: 32000, opus_application: 'voip' } }, withOpus, { rtspLatencyMs: 200 });
    expect(branch(c.description)).toBe(
      `interaudiosrc name="fileaudio" channel="fileaudio" ! ${raw(48000)} ! queue ! audioconvert ! audioresample ! `
      + 'audiocheblimit name="ahighpass" mode="high-pass" cutoff=200 poles=4 ! audioconvert ! audioresample ! '
      + `${raw(48000)} ! ${DSP} ! audioconvert ! audioresample ! ${raw(48000)} ! opusenc name="aenc" bitrate=32000 audio-type="voice" ! queue ! appsink name="rtsp_feed1"`,
    );
    expect(c.companions?.[0]).toContain(`audioconvert ! audioresample ! ${raw(48000)} ! interaudiosink`);
    expect(c.description).not.toContain('rate=8000');
  });
});
