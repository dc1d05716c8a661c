/**
 * Composing a pipeline description from a definition: pure, no I/O. The core asks the registry's plugins for
 * every fragment and only joins them, so it never names a codec, scheme or element of its own beyond the
 * generic raw-video normalisers (videoconvert, videoscale, videorate).
 */
import { join } from 'node:path';
import { caps, element, type ComposeContext, type OutputFragment, type OutputStream, type RtspService, type SourceFragment } from '../sdk';
import { AUDIO_CODEC, audioChain, audioEncoding } from './audio';
import type { PluginRegistry } from '../plugins/registry';
import type { PipelineDefinition } from './model';
// advanced.ts and multiview.ts use this module's helpers too; the cycle is safe because each side calls the other only at run time.
import { composeAdvanced } from './advanced';
import { composeMultiview } from './multiview';
import { framegrabBranch, type FramegrabElements } from '../framegrabs/branch';
import { KLV_STREAM, klvExtractor, klvInjector } from '../klv/fragments';
import type { SideTransport } from '../engine/transports';

export interface ComposeSettings {
  rtspLatencyMs: number;
  /** Where each pipeline's own output directory lives (`<data dir>/outputs`; ComposeContext.outputDir). */
  outputsDir?: string;
}

/** A pipeline's own output directory (ComposeContext.outputDir): pipeline ids are plain names, so never a path. */
export function outputDirOf(outputsDir: string, pipelineId: string): string {
  return join(outputsDir, pipelineId);
}

export interface ComposedPipeline {
  description: string;
  rtsp?: RtspService;
  finaliseWithEos: boolean;
  /** The element of the video encoder, for live changes. */
  encoderElement?: string;
  /** Licence features this pipeline uses when it encodes. */
  features: string[];
  /** The output's session description, when it is RTP (served at GET /svc/pipeline/{id}/sdp). */
  sdp?: string;
  /** Pipelines the engine host runs beside the main one, each rebuilt at its end-of-stream (a looped file). */
  companions?: string[];
  /** Element messages that mean the source went silent (see SourceFragment.lossMessages). */
  lossMessages?: string[];
  /** End-of-stream is the stream's natural end, not a lost source. */
  finite?: boolean;
  /** The framegrab branch's elements (core/framegrabs/branch.ts), closed until framegrabs start. */
  framegrab?: FramegrabElements;
  /** The appsrc that takes ST 0601 packets for the output's KLV stream, when the output carries KLV. */
  klvInjector?: string;
  /** How the output wants its KLV stamped (OutputFragment.klvStamp; absent: ahead). */
  klvStamp?: 'ahead' | 'due';
  /** The appsink that receives the source's KLV, when the source may carry it (in the companion when companionSinks has it). */
  klvSink?: string;
  /** For each companion, the appsinks in it the engine host watches (the source's KLV of a file read by one). */
  companionSinks?: string[][];
  /**
   * A valve the manager closes (`drop` true) just before it sends the end-of-stream that finalises a file, so only
   * whole frames reach the muxer: set when a passed-through stream is recorded (docs/dataplane.md, passthrough).
   */
  eosGate?: string;
  /**
   * Set when the pipeline passes a stream through and its codec is not known yet: `description` is then empty, and
   * this pipeline (the source's fragment ending in the appsink `sink`) runs until its first sample, whose caps name
   * the codec to compose again with (composeSimple's passthroughCodec; docs/dataplane.md).
   */
  probe?: { description: string; sink: string; transports?: SideTransport[] };
  /** Where the engine host measures the pipeline's statistics (core/pipeline/stats.ts). */
  meters?: Meters;
}

/** A pad of a named element: `sink`, `src` or a request pad made by the description (`sink_0`). */
export interface PadRef {
  element: string;
  pad: string;
}

/**
 * The pads the engine host counts buffers on, named by the composer (it names every element it measures). Every leaf
 * sink of the pipeline but internalSinks is the output: the bytes that reached the output are counted there.
 */
export interface Meters {
  /** Encoded video frames on their way to the output: the encoder's src pad (or the passed-through stream's). */
  frames?: PadRef;
  /** Frames the source delivered: the first pad after the source's fragment (or the compositor's output). */
  source?: PadRef;
  /** Multiview: each input's compositor pad, in input order. */
  inputs?: PadRef[];
  /** The videorate whose drop and duplicate counts are reported. */
  rate?: string;
  /** Sinks that are not the output (framegrabs, KLV extraction). */
  internalSinks: string[];
  /** The source's and the output's network elements (core/sdk/transport.ts): their figures, and context for their errors. */
  transports?: SideTransport[];
}

/** `{transports}` with the source's and output's declared transports, each with its side; `{}` when neither declares one. */
function transportsOf(source: SourceFragment, output?: OutputFragment): { transports?: SideTransport[] } {
  const all: SideTransport[] = [];
  if (source.transport) all.push({ ...source.transport, side: 'source' });
  if (output?.transport) all.push({ ...output.transport, side: 'output' });
  return all.length ? { transports: all } : {};
}

/** The sinks of a pipeline's side branches, which the output's byte count leaves out. */
export function internalSinks(c: Pick<ComposedPipeline, 'framegrab' | 'klvSink'>): string[] {
  return [c.framegrab?.sink, c.klvSink].filter((s): s is string => Boolean(s));
}

export function composeContext(pipelineId: string, settings: ComposeSettings, encodedVideoCaps: readonly string[] = []): ComposeContext {
  const used = new Map<string, number>();
  return {
    pipelineId,
    settings,
    encodedVideoCaps,
    outputDir: settings.outputsDir === undefined ? undefined : outputDirOf(settings.outputsDir, pipelineId),
    name(role: string) {
      const n = (used.get(role) ?? 0) + 1;
      used.set(role, n);
      return n === 1 ? role : `${role}${n}`;
    },
  };
}

export class ComposeError extends Error {}

/**
 * The output's own validation refused the codec a probe found in a passed-through source: `errors` are the output's
 * messages, each naming its field (e.g. `output.uri`). A mistake in the definition, known only once the source is
 * opened (the manager answers it as one: docs/api.md, passthrough).
 */
export class CodecRefusedError extends ComposeError {
  constructor(readonly codec: string, readonly errors: string[]) {
    super(`the source's video is ${codec}: ${errors.join('; ')}`);
  }
}

/**
 * Simple mode: source → (normalise → encode) → output, and the audio branch as a second stream when asked.
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
  const sf = source.fragment(def.source, ctx, { decode: Boolean(enc), audio: def.audio?.source === 'stream' });
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
    const encoder = codec.encoder(enc, ctx);
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
      const audioFeature = def.audio ? registry.codec(AUDIO_CODEC)?.licenceFeature : undefined;
      return {
        description: '', features: audioFeature ? [audioFeature] : [], finaliseWithEos: false,
        probe: { description: `${sf.description} ! ${element('appsink', { name: sink, sync: false })}`, sink, ...transportsOf(sf) },
      };
    }
    // The output learns the codec only now: its own validation decides whether it can carry it (AV1 into .ts).
    if (probed) {
      const refused = output.validate(def.output, def, codec);
      if (refused.length) throw new CodecRefusedError(codec.codec, refused);
    }
    // The parser converts the source's stream format (1.22's parsebin fixes it early, e.g. H.264 as avc) to what the
    // output's muxer or payloader negotiates (e.g. byte-stream for MPEG-TS).
    // A silent identity is where the passed-through frames are counted (no thread, no copy).
    chain += ` ! ${element('identity', { name: sourceMeter, silent: true })} ! ${codec.passthroughParser ?? codec.parser}`;
    frames = { element: sourceMeter, pad: 'src' };
    codecInfo = codec;
  }

  const onDemand = def.on_demand;
  const streams: OutputStream[] = [{ media: 'video', codec: codecInfo }];
  const audio = def.audio ? audioBranch(def, sf, registry, ctx) : undefined;
  if (audio) {
    streams.push(audio.stream);
    features.push(audio.feature);
  }
  // The KLV stream is always there when the output can carry it, so a geolocation patch applies without a restart. It
  // carries the geolocation, else the source's own KLV relayed by the engine host (a passed-through one too).
  const klvIn = !onDemand && output.carriesKlv?.(def.output, codecInfo) ? klvInjector(ctx) : undefined;
  if (klvIn) streams.push({ media: 'klv', codec: KLV_STREAM });
  const of = output.fragment(def.output, streams, ctx, { onDemand });
  // A stop's end-of-stream enters at the source, which cuts the stream where it finds it: the demuxer or depayloader
  // drains the access unit it was still receiving, and the parser passes it on as if whole. Encoded pipelines are
  // safe (the decoder conceals, the encoder drains whole frames); a passed-through one is gated after its parser.
  const eosGate = !enc && of.finaliseWithEos ? ctx.name('eosgate') : undefined;
  if (eosGate) chain += ` ! ${element('valve', { name: eosGate, 'drop-mode': 'forward-sticky-events' })}`;
  const parts = [of.shared, `${chain} ! ${of.streams[0]}`, audio ? `${audio.chain} ! ${of.streams[1]}` : ''].filter(Boolean);
  if (klvIn) parts.push(`${klvIn.description} ! ${of.streams[streams.length - 1]}`);
  if (framegrab) parts.push(framegrab.branch);
  const klvFrom = onDemand ? undefined : sf.klv ?? (sf.companion ? sf.companionKlv : undefined);
  const klvInCompanion = Boolean(klvFrom && !sf.klv);
  // A companion reads a file in real time, and so does a finite (file) source: their KLV keeps to the clock too.
  const klvOut = klvFrom ? klvExtractor(ctx, klvFrom, klvInCompanion || Boolean(sf.finite)) : undefined;
  if (klvOut && !klvInCompanion) parts.push(klvOut.description);
  const description = parts.join(' ');
  let rtsp = of.rtsp;
  if (rtsp?.mode === 'launch') rtsp = { ...rtsp, launch: `( ${description} )` };
  const companions = sf.companion ? [klvInCompanion ? `${sf.companion} ${klvOut!.description}` : sf.companion] : undefined;
  return {
    description, rtsp, finaliseWithEos: Boolean(of.finaliseWithEos), encoderElement, features, sdp: of.sdp, companions,
    lossMessages: sf.lossMessages, finite: sf.finite,
    framegrab: framegrab?.elements, klvInjector: klvIn?.appsrc, klvSink: klvOut?.sink, eosGate,
    ...(klvIn ? { klvStamp: of.klvStamp ?? 'ahead' } : {}),
    ...(klvInCompanion ? { companionSinks: [[klvOut!.sink]] } : {}),
    meters: {
      frames, source: { element: sourceMeter, pad: 'sink' }, rate,
      internalSinks: internalSinks({ framegrab: framegrab?.elements, klvSink: klvOut?.sink }),
      ...transportsOf(sf, of),
    },
  };
}

/** The audio chain (core/pipeline/audio.ts) ending in the audio codec's encoder: the output's second stream. */
function audioBranch(def: PipelineDefinition, sf: SourceFragment, registry: PluginRegistry, ctx: ComposeContext) {
  const spec = def.audio!;
  const codec = registry.codec(AUDIO_CODEC);
  if (!codec) throw new ComposeError(`no codec plugin provides ${AUDIO_CODEC}`);
  if (spec.source === 'stream' && !sf.audio) throw new ComposeError('the source gives no audio stream for audio.source stream');
  const encoding = audioEncoding(spec);
  const encoder = codec.encoder(encoding, ctx);
  return {
    chain: `${audioChain(spec, ctx, sf.audio)} ! ${encoder.description}`,
    stream: { media: 'audio', codec, fmtp: codec.rtp.fmtp?.(encoding) } satisfies OutputStream,
    feature: codec.licenceFeature,
  };
}

/** Any mode: advanced descriptions come from advanced.ts (macro expansion), multiview from multiview.ts, simple from the plugins' fragments here. */
export function composePipeline(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings, passthroughCodec?: string): ComposedPipeline {
  if (def.mode === 'advanced') return composeAdvanced(def, registry, settings);
  if (def.mode === 'multiview') return composeMultiview(def, registry, settings);
  return composeSimple(def, registry, settings, passthroughCodec);
}
