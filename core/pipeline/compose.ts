/**
 * Composing a pipeline description from a definition: pure, no I/O. The core asks the registry's plugins for
 * every fragment and only joins them, so it never names a codec, scheme or element of its own beyond the
 * generic raw-video normalisers (videoconvert, videoscale, videorate).
 */
import { caps, type ComposeContext, type OutputStream, type RtspService } from '../sdk';
import type { PluginRegistry } from '../plugins/registry';
import type { PipelineDefinition } from './model';
// advanced.ts uses this module's helpers too; the cycle is safe because each side calls the other only at run time.
import { composeAdvanced } from './advanced';

export interface ComposeSettings {
  rtspLatencyMs: number;
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
}

export function composeContext(pipelineId: string, settings: ComposeSettings, encodedVideoCaps: readonly string[] = []): ComposeContext {
  const used = new Map<string, number>();
  return {
    pipelineId,
    settings,
    encodedVideoCaps,
    name(role: string) {
      const n = (used.get(role) ?? 0) + 1;
      used.set(role, n);
      return n === 1 ? role : `${role}${n}`;
    },
  };
}

export class ComposeError extends Error {}

/** Simple mode: source → (normalise → encode) → output. */
export function composeSimple(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings): ComposedPipeline {
  const ctx = composeContext(def.id, settings, registry.codecs('video').map((c) => c.caps));
  const source = def.source && registry.source(def.source.uri);
  const output = def.output && registry.output(def.output.uri);
  if (!def.source || !source) throw new ComposeError('no source plugin accepts source.uri');
  if (!def.output || !output) throw new ComposeError('no output plugin accepts output.uri');

  const enc = def.encoding;
  const sf = source.fragment(def.source, ctx, { decode: Boolean(enc) });
  let chain = sf.description;
  let encoderElement: string | undefined;
  const features: string[] = [];
  let codecInfo: OutputStream['codec'] = null;
  if (enc) {
    const codec = registry.codec(enc.codec);
    if (!codec) throw new ComposeError(`no codec plugin provides ${enc.codec}`);
    const encoder = codec.encoder(enc, ctx);
    chain += ` ! queue ! videoconvert ! videoscale ! videorate ! ${caps('video/x-raw', { width: enc.width, height: enc.height, framerate: `${enc.fps}/1` })}`;
    chain += ` ! ${encoder.description}`;
    encoderElement = encoder.element;
    features.push(codec.licenceFeature);
    codecInfo = codec;
  } else if (sf.codec) {
    codecInfo = registry.codec(sf.codec) ?? null;
  }

  const onDemand = def.on_demand;
  const streams: OutputStream[] = [{ media: 'video', codec: codecInfo }];
  const of = output.fragment(def.output, streams, ctx, { onDemand });
  const parts = [of.shared, `${chain} ! ${of.streams[0]}`].filter(Boolean);
  const description = parts.join(' ');
  let rtsp = of.rtsp;
  if (rtsp?.mode === 'launch') rtsp = { ...rtsp, launch: `( ${description} )` };
  const companions = sf.companion ? [sf.companion] : undefined;
  return {
    description, rtsp, finaliseWithEos: Boolean(of.finaliseWithEos), encoderElement, features, sdp: of.sdp, companions,
    lossMessages: sf.lossMessages, finite: sf.finite,
  };
}

/** Any mode: advanced descriptions come from advanced.ts (macro expansion), the rest from the plugins' fragments. */
export function composePipeline(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings): ComposedPipeline {
  if (def.mode === 'advanced') return composeAdvanced(def, registry, settings);
  return composeSimple(def, registry, settings);
}
