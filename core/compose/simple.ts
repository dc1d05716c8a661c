/**
 * Simple mode: source → (normalise → encode) → output, and the audio branch as a second stream when asked. Pure, no
 * I/O: the core asks the registry's plugins for every fragment and only joins them, so it never names a codec,
 * scheme or element of its own beyond the generic raw-video normalisers (videoconvert, videoscale, videorate).
 */
import { caps, element, type ComposeContext, type OutputStream, type SourceFragment } from '../sdk';
import { audioToCodec } from './audio';
import { audioCodecOf, audioEncoding, pipelineView, videoEncoding } from './codecs';
import type { PluginRegistry } from '../plugins/registry';
import type { PipelineDefinition } from '../pipeline/model';
import { framegrabBranch } from '../framegrabs/branch';
import { klvExtractor } from '../klv/fragments';
import { CodecRefusedError, composeContext, ComposeError, internalSinks, transportsOf, type ComposedPipeline, type ComposeSettings, type PadRef } from './context';
import { outputTail } from './tail';

/**
 * passthroughCodec is the codec a probe found in a passed-through source (ComposedPipeline.probe); without it such a
 * pipeline composes only its probe.
 */
export function composeSimple(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings, passthroughCodec?: string): ComposedPipeline {
  const probed = !def.encoding && passthroughCodec ? registry.codec(passthroughCodec) : undefined;
  if (!def.encoding && passthroughCodec && !probed) throw new ComposeError(`no codec plugin provides ${passthroughCodec}`);
  // A known passed-through codec narrows the source's pick to that stream.
  const ctx = composeContext(def.id, settings, probed ? [probed.caps] : registry.codecs('video').map((c) => c.caps));
  const source = def.source && registry.source(def.source.uri);
  const output = def.output && registry.output(def.output.uri);
  if (!def.source || !source) throw new ComposeError('no source plugin accepts source.uri');
  if (!def.output || !output) throw new ComposeError('no output plugin accepts output.uri');

  const enc = def.encoding;
  const streamAudio = def.audio?.source === 'stream';
  // A source that hands its audio between pipelines fixes it to the codec's format, never narrower.
  const audioFormat = streamAudio ? audioCodecOf(registry, def.audio!)?.rawAudio : undefined;
  const sf = source.fragment(def.source, ctx, { decode: Boolean(enc), audio: streamAudio, ...(audioFormat ? { audioFormat } : {}) });
  let chain = sf.description;
  let encoderElement: string | undefined;
  let framegrab: ReturnType<typeof framegrabBranch> | undefined;
  const features: string[] = [];
  let codecInfo: OutputStream['codec'] = null;
  const sourceMeter = ctx.name('srcmeter');
  let rate: string | undefined;
  let frames: PadRef;
  if (enc) {
    const codec = registry.codec(enc.codec);
    if (!codec) throw new ComposeError(`no codec plugin provides ${enc.codec}`);
    const encoder = codec.encoder(videoEncoding(enc, codec), ctx);
    rate = ctx.name('rate');
    chain += ` ! ${element('queue', { name: sourceMeter })} ! videoconvert ! videoscale ! ${element('videorate', { name: rate })} ! ${caps('video/x-raw', { width: enc.width, height: enc.height, framerate: `${enc.fps}/1` })}`;
    // Framegrabs take the scaled raw frames before the encoder; an on-demand pipeline runs inside the RTSP server, out of reach.
    if (!def.on_demand) {
      framegrab = framegrabBranch(ctx);
      chain += ` ! ${framegrab.tee} ! queue`;
    }
    chain += ` ! ${encoder.description}`;
    encoderElement = encoder.element;
    frames = { element: encoder.element, pad: 'src' };
    features.push(codec.licenceFeature);
    codecInfo = codec;
  } else {
    const codec = sf.codec ? registry.codec(sf.codec) : probed;
    if (!codec) {
      // Not known until the stream arrives: what runs first is the probe (docs/dataplane.md, passthrough).
      const sink = ctx.name('probe');
      const audioFeature = def.audio ? audioCodecOf(registry, def.audio)?.licenceFeature : undefined;
      return {
        description: '', features: audioFeature ? [audioFeature] : [], finaliseWithEos: false,
        probe: { description: `${sf.description} ! ${element('appsink', { name: sink, sync: false })}`, sink, ...transportsOf(sf) },
      };
    }
    // The output learns the codec only now: its own validation decides whether it can carry it (AV1 into .ts).
    if (probed) {
      const refused = output.validate(def.output, pipelineView(def, registry), codec);
      if (refused.length) throw new CodecRefusedError(codec.codec, refused);
    }
    // The parser converts the source's stream format (1.22's parsebin fixes it early, e.g. H.264 as avc) to what the
    // output's muxer or payloader negotiates (e.g. byte-stream for MPEG-TS).
    // A silent identity is where the passed-through frames are counted (no thread, no copy).
    // The relay hands on the source's timestamps, which are not always increasing: a source that recovers the sender's
    // clock from arrival times can, after a stall and a burst, give a run of frames a repeated or backward DTS, which
    // every muxer and receiver refuses. The guard (our own element) moves such a DTS just past the previous one; an
    // encoded stream needs none, since our encoder stamps it (docs/dataplane.md, passthrough, "Timing").
    chain += ` ! ${element('identity', { name: sourceMeter, silent: true })} ! ${codec.passthroughParser ?? codec.parser}`
      + ` ! ${element('dtsguard', { name: ctx.name('dtsguard') })}`;
    frames = { element: sourceMeter, pad: 'src' };
    codecInfo = codec;
  }

  const audio = def.audio ? audioBranch(def, sf, registry, ctx) : undefined;
  if (audio) features.push(audio.feature);
  const onDemand = def.on_demand;
  const klvFrom = onDemand ? undefined : sf.klv ?? (sf.companion ? sf.companionKlv : undefined);
  const klvInCompanion = Boolean(klvFrom && !sf.klv);
  // A companion reads a file in real time, and so does a finite (file) source: their KLV keeps to the clock too.
  const klvOut = klvFrom ? klvExtractor(ctx, klvFrom, klvInCompanion || Boolean(sf.finite)) : undefined;
  const { composed, fragment } = outputTail({
    output, spec: def.output, ctx, onDemand, video: { chain, codec: codecInfo }, audio, passthrough: !enc, framegrab,
    extra: klvOut && !klvInCompanion ? [klvOut.description] : [],
  });
  const companions = sf.companion ? [klvInCompanion ? `${sf.companion} ${klvOut!.description}` : sf.companion] : undefined;
  return {
    ...composed, encoderElement, features, companions, lossMessages: sf.lossMessages, finite: sf.finite,
    framegrab: framegrab?.elements, klvSink: klvOut?.sink,
    ...(klvInCompanion ? { companionSinks: [[klvOut!.sink]] } : {}),
    meters: {
      frames, source: { element: sourceMeter, pad: 'sink' }, rate,
      internalSinks: internalSinks({ framegrab: framegrab?.elements, klvSink: klvOut?.sink }),
      ...transportsOf(sf, fragment),
    },
  };
}

/**
 * The audio chain (core/compose/audio.ts) to the audio codec's own raw format, then its encoder: the output's second
 * stream.
 */
function audioBranch(def: PipelineDefinition, sf: SourceFragment, registry: PluginRegistry, ctx: ComposeContext) {
  const spec = def.audio!;
  const codec = audioCodecOf(registry, spec);
  if (!codec) throw new ComposeError(`no audio codec plugin provides ${spec.codec ?? 'audio'}`);
  if (!codec.rawAudio) throw new ComposeError(`audio codec ${codec.codec} declares no rawAudio`);
  if (spec.source === 'stream' && !sf.audio) throw new ComposeError('the source gives no audio stream for audio.source stream');
  const encoding = audioEncoding(spec, codec);
  const encoder = codec.encoder(encoding, ctx);
  return {
    chain: `${audioToCodec(spec, ctx, codec.rawAudio, sf.audio)} ! ${encoder.description}`,
    stream: { media: 'audio', codec, fmtp: codec.rtp.fmtp?.(encoding) } satisfies OutputStream,
    feature: codec.licenceFeature,
  };
}
