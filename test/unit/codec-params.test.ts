/**
 * A codec plugin's own encoding parameters (CodecPlugin.parameters, issue 15): a video codec's are fields of
 * `encoding`, an audio codec's of `audio`; they join the body schema and its OpenAPI form, their defaults apply only
 * to the codec chosen, a field of another codec is refused, and the encoder reads them in `encoding.params`. Misuse
 * (a shared or core field name, a second multiview codec) stops the registry or the validator naming the plugin.
 */
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { composeSimple } from '../../core/compose';
import { PluginRegistry } from '../../core/plugins/registry';
import { PipelineValidator } from '../../core/pipeline/validate';
import { definePlugin, type CodecPlugin, type EncodingSpec } from '../../core/sdk';
import { ApiError } from '../../core/errors/catalogue';

const h264 = builtinPlugins.find((p) => p.kind === 'codec' && p.codec === 'h264') as CodecPlugin;
const codec2 = builtinPlugins.find((p) => p.kind === 'codec' && p.codec === 'codec2') as CodecPlugin;

/** A vendor-like codec built on a built-in one, with its own parameters; its encoder remembers what it was given. */
function codecLike(base: CodecPlugin, name: string, extra: Partial<CodecPlugin>, seen: EncodingSpec[] = []): CodecPlugin {
  return definePlugin<CodecPlugin>({
    ...base, name, codec: name, licenceFeature: name, macro: undefined, multiview: undefined, caps: `${base.media}/x-${name}`,
    encoder: (encoding, ctx) => {
      seen.push(encoding);
      return base.encoder(encoding, ctx);
    },
    ...extra,
  });
}

function registryWith(...extra: CodecPlugin[]): PluginRegistry {
  const r = new PluginRegistry();
  for (const p of [...builtinPlugins, ...extra]) r.register(p);
  return r;
}

const errorsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return (err.details as { errors: string[] }).errors;
    throw err;
  }
  return [];
};

const profile = { vid_profile: { type: 'string' as const, enum: ['main', 'high'], default: 'main' } };
const body = (encoding: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'p', mode: 'simple', source: { uri: 'test://ball' }, encoding: { width: 320, height: 240, ...encoding }, output: { uri: '/tmp/p.mkv' }, ...extra,
});

describe('a video codec\'s parameters', () => {
  const seen: EncodingSpec[] = [];
  const vid = codecLike(h264, 'vid', { parameters: profile }, seen);
  const registry = registryWith(vid);
  const validator = new PipelineValidator(registry);

  it('are fields of encoding in the body schema and its documented form', () => {
    expect(JSON.stringify(validator.schemas.body)).toContain('"vid_profile":{"type":"string","enum":["main","high"]}');
    expect(JSON.stringify(validator.schemas.body)).toContain('"then":{"properties":{"vid_profile":{"default":"main"}}}');
  });

  it('take their default only for their codec, and reach its encoder in encoding.params', () => {
    const def = validator.definition(body({ codec: 'vid' }));
    expect(def.encoding).toMatchObject({ codec: 'vid', vid_profile: 'main' });
    expect(validator.definition(body({ codec: 'h264' })).encoding).not.toHaveProperty('vid_profile');
    composeSimple({ ...def, encoding: { ...def.encoding!, vid_profile: 'high' } as EncodingSpec }, registry, { rtspLatencyMs: 0 });
    expect(seen.at(-1)?.params).toEqual({ vid_profile: 'high' });
  });

  it('are refused in the schema\'s words, and beside another codec', () => {
    expect(errorsOf(() => validator.definition(body({ codec: 'vid', vid_profile: 'baseline' })))).toEqual(['encoding.vid_profile must be one of main, high']);
    expect(errorsOf(() => validator.definition(body({ codec: 'h264', vid_profile: 'high' })))).toEqual(['encoding.vid_profile applies only to encoding.codec vid']);
  });
});

describe('an audio codec', () => {
  const seen: EncodingSpec[] = [];
  const talk = codecLike(codec2, 'talk', { parameters: { talk_level: { type: 'integer', minimum: 1, maximum: 9, default: 3 } }, refusals: undefined }, seen);
  const validator = new PipelineValidator(registryWith(talk));
  const withAudio = (audio: Record<string, unknown>) => body({ codec: 'h264' }, { audio: { source: 'test', ...audio }, output: { uri: 'rtsp://127.0.0.1:8554/t' } });

  it('is chosen by audio.codec; without it the audio is the first registered (Codec2), with its own default only', () => {
    expect(validator.definition(withAudio({ codec: 'talk' })).audio).toMatchObject({ codec: 'talk', talk_level: 3 });
    expect(validator.definition(withAudio({ codec: 'talk' })).audio).not.toHaveProperty('codec2_mode');
    const plain = validator.definition(withAudio({})).audio;
    expect(plain).toMatchObject({ codec2_mode: 2400 });
    expect(plain).not.toHaveProperty('talk_level');
    expect(plain).not.toHaveProperty('codec');
  });

  it('works in simple mode: its encoder gets its parameters, the output its stream, the licence its feature', () => {
    const def = validator.definition(withAudio({ codec: 'talk', talk_level: 7 }));
    const c = composeSimple(def, registryWith(talk), { rtspLatencyMs: 0 });
    expect(seen.at(-1)).toMatchObject({ codec: 'talk', params: { talk_level: 7 } });
    expect(c.features).toEqual(['h264', 'talk']);
    expect(c.sdp).toContain('a=rtpmap:97 CODEC2/8000');
  });

  it('is handed the raw audio it declares (rawAudio): the filters run at the webrtcdsp rate that holds it', () => {
    const wide = codecLike(codec2, 'wide', { parameters: undefined, rawAudio: { rate: 24000, channels: 2, format: 'S16LE' } });
    const registry = registryWith(wide);
    const def = { ...new PipelineValidator(registry).definition(withAudio({ codec: 'wide' })), source: { uri: 'file:///tmp/talk.mkv' } };
    const c = composeSimple({ ...def, audio: { ...def.audio!, source: 'stream' } }, registry, { rtspLatencyMs: 0 });
    expect(c.description).toContain('capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=32000,channels=2" ! webrtcdsp');
    expect(c.description).toContain('audioconvert ! audioresample ! capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=24000,channels=2" ! codec2enc name="aenc"');
    // The file reader hands the audio over in the codec's format too.
    expect(c.companions?.[0]).toContain('capsfilter caps="audio/x-raw,format=S16LE,layout=interleaved,rate=24000,channels=2" ! interaudiosink');
  });

  it('is refused where its container cannot go, in generic words when it declares none of its own', () => {
    expect(errorsOf(() => validator.definition(withAudio({ codec: 'talk', talk_level: 0 })))).toEqual(['audio.talk_level must be between 1 and 9']);
    expect(errorsOf(() => validator.definition({ ...withAudio({ codec: 'talk' }), output: { uri: 'udp://127.0.0.1:5000' } })))
      .toEqual(['audio of talk has no MPEG-TS mapping: over these outputs it needs a video codec that goes as an RTP bundle']);
    expect(errorsOf(() => validator.definition({ ...withAudio({}), output: { uri: 'udp://127.0.0.1:5000' } })))
      .toEqual(['audio over these outputs requires the AV1 video codec']);
  });
});

describe('misuse stops the service naming the plugin', () => {
  it('an audio codec that does not say what raw audio it takes, or says it wrongly', () => {
    expect(() => codecLike(codec2, 'talk', { rawAudio: undefined })).toThrow('plugin "talk": audio codec plugins must provide "rawAudio"');
    expect(() => codecLike(codec2, 'talk', { rawAudio: { rate: 0, channels: 1, format: 'S16LE' } })).toThrow('plugin "talk": rawAudio.rate must be a positive integer');
    expect(() => codecLike(codec2, 'talk', { rawAudio: { rate: 8000, channels: 0, format: 'S16LE' } })).toThrow('plugin "talk": rawAudio.channels must be a positive integer');
    expect(() => codecLike(codec2, 'talk', { rawAudio: { rate: 8000, channels: 1, format: 's16 ! x' } })).toThrow('plugin "talk": rawAudio.format must be a GStreamer raw audio format');
  });

  it('a parameter another codec of the medium declares', () => {
    expect(() => registryWith(codecLike(codec2, 'talk', { parameters: { codec2_mode: { type: 'integer' } } })))
      .toThrow('plugin "talk": parameter "codec2_mode" is already declared by codec "codec2"');
  });

  it('a parameter named like one of the core\'s fields', () => {
    expect(() => new PipelineValidator(registryWith(codecLike(h264, 'vid', { parameters: { quality: { type: 'integer' } } }))))
      .toThrow('plugin "vid": parameter "quality" is a field of encoding already');
  });

  it('a malformed declaration, and a second multiview codec', () => {
    expect(() => codecLike(h264, 'vid', { parameters: { 'Bad-Name': { type: 'integer' } } })).toThrow('plugin "vid": parameter "Bad-Name": its name must be');
    expect(() => codecLike(h264, 'vid', { parameters: { vid_x: { type: 'string', enum: ['a'], default: 'b' } } })).toThrow('default must be one of its enum');
    expect(() => registryWith(codecLike(h264, 'vid', { multiview: { quality: 3 } }))).toThrow('plugin "vid": codec "av1" is already the one multiview encodes with');
  });
});
