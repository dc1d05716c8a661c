/** The audio chain and the ALSA device grammar are pure: golden texts and accept/reject tables (docs/audio.md). */
import { describe, expect, it } from 'vitest';
import { audioChain, audioToCodec, dspRate, isAlsaDevice } from '../../core/compose/audio';
import { composeContext, composeSimple } from '../../core/compose';
import type { PipelineDefinition } from '../../core/pipeline/model';
import { PluginRegistry } from '../../core/plugins/registry';
import type { AudioSpec } from '../../core/sdk';
import { builtinPlugins } from '../../plugins';
import { RAW_AUDIO as CODEC2 } from '../../plugins/codecs/codec2';

const registry = new PluginRegistry();
for (const p of builtinPlugins) registry.register(p);
const DEFAULTS: AudioSpec = { source: 'stream', test_wave: 0, codec2_mode: 2400, noise_filter: true, noise_suppression: true, noise_suppression_level: 2, auto_gain_control: true };
const ctx = () => composeContext('a1', { rtspLatencyMs: 200 });

describe('ALSA device grammar', () => {
  it.each([
    'default', 'sysdefault', 'null', 'pulse', 'pipewire',
    'hw:0', 'hw:1,0', 'hw:1,0,2', 'hw:31,31,31', 'plughw:0,0', 'dsnoop:0,0', 'dsnoop:1', 'front:0', 'default:1',
    'hw:PCH,0', 'plughw:Snowball,0', 'sysdefault:CARD=x', 'hw:CARD=PCH,DEV=0', 'hw:CARD=PCH,DEV=0,SUBDEV=1', 'default:CARD=Device',
  ])('accepts %s', (d) => expect(isAlsaDevice(d)).toBe(true));

  it.each([
    '', 'hw', 'hw:', 'hw:1,', 'hw:1,0,', 'hw:1,0,0,0', 'hw:32,0', 'hw:1,32', 'hw:-1,0', 'hw: 1,0', 'HW:1,0', 'foo:1,0', 'dmix:0,0',
    '/dev/snd/pcmC0D0c', 'hw:1,0 ! fakesink', 'hw:"1",0', 'hw:1,0\n', 'default ', 'plughw:0,0 name=x', 'hw:CARD=', 'hw:CARD=x,DEV=',
    'hw:CARD=x,SUBDEV=1', 'hw:9abc,0', 'hw:averyveryverylongcardname,0', 'sysdefault:CARD=x,DEV=0,SUBDEV=0,X=1',
  ])('rejects %j', (d) => expect(isAlsaDevice(d)).toBe(false));
});

describe('audioChain', () => {
  it('stream: volume, 200 Hz high-pass, webrtcdsp at 8 kHz (echo canceller and its own high-pass off)', () => {
    expect(audioChain({ ...DEFAULTS, volume: 1.5, noise_suppression_level: 4 }, ctx(), CODEC2, 'dec. ! capsfilter caps="audio/x-raw"')).toBe(
      'dec. ! capsfilter caps="audio/x-raw" ! queue ! audioconvert ! audioresample ! volume name="avolume" volume=1.5 ! '
      + 'audiocheblimit name="ahighpass" mode="high-pass" cutoff=200 poles=4 ! audioconvert ! audioresample ! '
      + 'capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=8000,channels=1" ! '
      + 'webrtcdsp name="adsp" echo-cancel=false high-pass-filter=false noise-suppression=true noise-suppression-level="very-high" gain-control=true',
    );
  });

  it('local: alsasrc on the quoted device; levels 1..4 are low, moderate, high, very-high', () => {
    const levels = [1, 2, 3, 4].map((l) => /noise-suppression-level="([a-z-]+)"/.exec(audioChain({ ...DEFAULTS, source: 'local', device: 'hw:1,0', noise_suppression_level: l }, ctx(), CODEC2))![1]);
    expect(levels).toEqual(['low', 'moderate', 'high', 'very-high']);
    expect(audioChain({ ...DEFAULTS, source: 'local', device: 'plughw:0,0' }, ctx(), CODEC2).startsWith('alsasrc name="asrc" device="plughw:0,0" ! queue ! ')).toBe(true);
  });

  it('filters are each optional; with all three off only conversion remains; no volume when unset', () => {
    const none = { ...DEFAULTS, source: 'local' as const, device: 'default', noise_filter: false, noise_suppression: false, auto_gain_control: false };
    expect(audioChain(none, ctx(), CODEC2)).toBe('alsasrc name="asrc" device="default" ! queue ! audioconvert ! audioresample');
    expect(audioChain({ ...none, auto_gain_control: true }, ctx(), CODEC2)).toContain('noise-suppression=false noise-suppression-level="moderate" gain-control=true');
    expect(audioChain({ ...none, noise_filter: true }, ctx(), CODEC2)).not.toContain('webrtcdsp');
  });

  it('test: audiotestsrc, live, skips every filter but keeps the volume', () => {
    expect(audioChain({ ...DEFAULTS, source: 'test', test_wave: 2, volume: 0.5 }, ctx(), CODEC2)).toBe(
      'audiotestsrc name="asrc" wave=2 is-live=true ! queue ! audioconvert ! audioresample ! volume name="avolume" volume=0.5',
    );
  });
});

describe('the codec\'s own raw audio (CodecPlugin.rawAudio)', () => {
  const OPUS = { rate: 48000, channels: 1, format: 'S16LE' };
  const STREAM = 'dec. ! capsfilter caps="audio/x-raw"';
  const DSP = 'webrtcdsp name="adsp" echo-cancel=false high-pass-filter=false noise-suppression=true noise-suppression-level="moderate" gain-control=true';

  it.each([[8000, 8000], [11025, 16000], [16000, 16000], [24000, 32000], [32000, 32000], [44100, 48000], [48000, 48000], [96000, 48000]])(
    'webrtcdsp runs at the lowest rate it takes that holds the codec\'s: %i Hz → %i Hz', (codec, dsp) => expect(dspRate(codec)).toBe(dsp));

  it('Codec2: the filters at 8 kHz mono, then 8 kHz mono S16LE', () => {
    expect(audioToCodec(DEFAULTS, ctx(), CODEC2, STREAM)).toBe(
      `${STREAM} ! queue ! audioconvert ! audioresample ! audiocheblimit name="ahighpass" mode="high-pass" cutoff=200 poles=4 ! audioconvert ! audioresample ! `
      + `capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=8000,channels=1" ! ${DSP} ! `
      + 'audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=8000,channels=1"',
    );
  });

  it('a 48 kHz codec (the Opus example\'s format): the filters at 48 kHz, never narrowed to 8 kHz', () => {
    expect(audioToCodec(DEFAULTS, ctx(), OPUS, STREAM)).toBe(
      `${STREAM} ! queue ! audioconvert ! audioresample ! audiocheblimit name="ahighpass" mode="high-pass" cutoff=200 poles=4 ! audioconvert ! audioresample ! `
      + `capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1" ! ${DSP} ! `
      + 'audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"',
    );
  });

  it('a codec between webrtcdsp\'s rates, in stereo and floats: the filters at the rate above, then the codec\'s own', () => {
    const odd = { rate: 44100, channels: 2, format: 'F32LE' };
    expect(audioToCodec({ ...DEFAULTS, noise_filter: false }, ctx(), odd, STREAM)).toBe(
      `${STREAM} ! queue ! audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=2" ! ${DSP} ! `
      + 'audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=F32LE,layout=interleaved,rate=44100,channels=2"',
    );
  });

  it('one conversion at the end, whatever the chain ends in: a test source, the high-pass alone', () => {
    expect(audioToCodec({ ...DEFAULTS, source: 'test' }, ctx(), OPUS)).toBe(
      'audiotestsrc name="asrc" wave=0 is-live=true ! queue ! audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"',
    );
    expect(audioToCodec({ ...DEFAULTS, noise_suppression: false, auto_gain_control: false }, ctx(), OPUS, STREAM)).toBe(
      `${STREAM} ! queue ! audioconvert ! audioresample ! audiocheblimit name="ahighpass" mode="high-pass" cutoff=200 poles=4 ! audioconvert ! audioresample ! `
      + 'capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"',
    );
  });
});

describe('composeSimple with audio', () => {
  const base: PipelineDefinition = {
    id: 'a1', mode: 'simple', on_demand: false,
    source: { uri: 'rtsp://127.0.0.1:8554/in' },
    encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
    output: { uri: 'rtsp://0.0.0.0:8554/live' },
    audio: { ...DEFAULTS, codec2_mode: 1300 },
  };

  it('RTSP: the audio is the second feed (rtsp_feed1 → pay1, pt 97, 80 ms packets); SDP names CODEC2/8000 with its mode', () => {
    const c = composeSimple(base, registry, { rtspLatencyMs: 200 });
    expect(c.description).toContain('src. ! capsfilter caps="application/x-rtp,media=audio" ! decodebin name="adec" ! capsfilter caps="audio/x-raw" ! queue ! ');
    expect(c.description).toContain('codec2enc name="aenc" mode=1300 ! queue ! appsink name="rtsp_feed1"');
    expect(c.services?.[0]).toMatchObject({
      mode: 'feed',
      // The KLV track last (docs/klv.md).
      feeds: [{ appsink: 'rtsp_feed0' }, { appsink: 'rtsp_feed1', launch: 'rtpcodec2pay name="pay1" pt=97 frames-per-packet=64 max-ptime=80000000' }, { appsink: 'rtsp_feed2', launch: 'rtpklvpay name="pay2" pt=98' }],
    });
    expect(c.sdp).toContain('m=audio 0 RTP/AVP 97\r\na=rtpmap:97 CODEC2/8000\r\na=fmtp:97 mode=1300\r\na=control:stream=1\r\n');
    expect(c.features).toEqual(['h264', 'codec2']);
  });

  it('RTSP on demand: pay0 and pay1 in the launch', () => {
    const c = composeSimple({ ...base, on_demand: true, audio: { ...DEFAULTS, source: 'test' } }, registry, { rtspLatencyMs: 200 });
    expect(c.services?.[0]?.mode).toBe('launch');
    const launch = (c.services?.[0] as { launch: string }).launch;
    expect(launch).toMatch(/rtph264pay name="pay0" pt=96 .* audiotestsrc name="asrc" wave=0 is-live=true ! .* ! codec2enc name="aenc" mode=2400 ! queue ! rtpcodec2pay name="pay1" pt=97 /);
  });

  it('UDP: AV1 pt 96 and Codec2 pt 97 through one rtpfunnel to one port; the TS source gives its audio from its decodebin', () => {
    const c = composeSimple({ ...base, source: { uri: 'udp://0.0.0.0:5000' }, encoding: { ...base.encoding!, codec: 'av1' }, output: { uri: 'udp://127.0.0.1:5004' } }, registry, { rtspLatencyMs: 200 });
    expect(c.description).toContain('dec. ! capsfilter caps="audio/x-raw" ! queue ! audioconvert');
    expect(c.description).toMatch(/codec2enc name="aenc" mode=1300 ! queue ! rtpcodec2pay name="pay\d" pt=97 frames-per-packet=64 max-ptime=80000000 ! rtpbundle\./);
    expect(c.sdp).toContain('m=video 5004 RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\nm=audio 5004 RTP/AVP 97\r\na=rtpmap:97 CODEC2/8000\r\na=fmtp:97 mode=1300\r\n');
  });

  it('TCP: the same bundle with RFC 4571 framing', () => {
    const c = composeSimple({ ...base, encoding: { ...base.encoding!, codec: 'av1' }, output: { uri: 'tcp://0.0.0.0:5010' } }, registry, { rtspLatencyMs: 200 });
    expect(c.description.startsWith('rtpfunnel name="rtpbundle" ! rtpstreampay ! tcpserversink')).toBe(true);
    expect(c.sdp).toContain('m=audio 5010 TCP/RTP/AVP 97\r\na=rtpmap:97 CODEC2/8000\r\na=fmtp:97 mode=1300\r\n');
  });

  it('a looped file hands its audio over through interaudiosink/interaudiosrc (the reader must not wait for audio to preroll)', () => {
    const c = composeSimple({ ...base, source: { uri: 'file:///etc/os-release' } }, registry, { rtspLatencyMs: 200 });
    expect(c.companions![0]).toContain('dec. ! capsfilter caps="audio/x-raw" ! queue ! audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=8000,channels=1" ! interaudiosink name="loopaudiosink" channel="fileaudio" async=false');
    expect(c.description).toContain('interaudiosrc name="fileaudio" channel="fileaudio" ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=8000,channels=1" ! queue ! ');
  });

  it('a hostile device stays one quoted value (validation refuses it first; this is the last line)', () => {
    const c = composeSimple({ ...base, audio: { ...DEFAULTS, source: 'local', device: 'hw:0" ! filesink location=/tmp/x name="y' } }, registry, { rtspLatencyMs: 200 });
    expect(c.description).toContain('alsasrc name="asrc" device="hw:0\\" ! filesink location=/tmp/x name=\\"y"');
  });
});
