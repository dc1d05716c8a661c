/**
 * The output end of every encoding mode (simple and multiview), written once: the streams handed to the output
 * plugin (video, then audio, then KLV when the output carries it), the output's fragment, the end-of-stream gate of a
 * recorded passthrough, the framegrab branch, and the joined description (also the launch line of an on-demand RTSP
 * mount). Pure: the element names it takes from ctx come after the caller's, in the same order in every mode.
 */
import { element, type CodecInfo, type ComposeContext, type OutputFragment, type OutputPlugin, type OutputSpec, type OutputStream } from '../sdk';
import type { framegrabBranch } from '../framegrabs/branch';
import { KLV_STREAM, klvInjector } from '../klv/fragments';
import type { ComposedPipeline } from './context';

export interface TailInput {
  output: OutputPlugin;
  spec: OutputSpec;
  ctx: ComposeContext;
  onDemand: boolean;
  /** The video chain, up to where the output's chain follows, and its codec. */
  video: { chain: string; codec: CodecInfo | null };
  /** The audio chain ending in its encoder, and the stream it is. */
  audio?: { chain: string; stream: OutputStream };
  /**
   * The video is passed through, not encoded. A stop's end-of-stream enters at the source, which cuts the stream
   * where it finds it: the demuxer or depayloader drains the access unit it was still receiving, and the parser passes
   * it on as if whole. Encoded pipelines are safe (the decoder conceals, the encoder drains whole frames); a
   * passed-through one is gated after its parser when the output finalises a file.
   */
  passthrough?: boolean;
  /** Chains that feed the video chain from elsewhere in the description (multiview's inputs into the compositor). */
  feeds?: string[];
  /** The framegrab branch, whose tee the video chain already passes through. */
  framegrab?: ReturnType<typeof framegrabBranch>;
  /** Branches placed last (the source's KLV extractor). */
  extra?: string[];
}

export interface Tail {
  /** The composed pipeline's fields the tail decides. */
  composed: Pick<ComposedPipeline, 'description' | 'services' | 'finaliseWithEos' | 'sdp' | 'klvInjector' | 'klvStamp' | 'eosGate'>;
  /** The output's fragment, for what the caller reports of it (its transport). */
  fragment: OutputFragment;
}

export function outputTail(t: TailInput): Tail {
  const { ctx, onDemand } = t;
  const streams: OutputStream[] = [{ media: 'video', codec: t.video.codec }];
  if (t.audio) streams.push(t.audio.stream);
  // The KLV stream is always there when the output can carry it, so a geolocation patch applies without a restart. It
  // carries the geolocation, else the source's own KLV relayed by the engine host (a passed-through one too).
  const klvIn = !onDemand && t.output.carriesKlv?.(t.spec, t.video.codec) ? klvInjector(ctx) : undefined;
  if (klvIn) streams.push({ media: 'klv', codec: { ...KLV_STREAM, containers: t.video.codec?.containers ?? [] } });
  const of = t.output.fragment(t.spec, streams, ctx, { onDemand });
  const eosGate = t.passthrough && of.finaliseWithEos ? ctx.name('eosgate') : undefined;
  const video = eosGate ? `${t.video.chain} ! ${element('valve', { name: eosGate, 'drop-mode': 'forward-sticky-events' })}` : t.video.chain;
  const parts = [of.shared, `${video} ! ${of.streams[0]}`, t.audio ? `${t.audio.chain} ! ${of.streams[1]}` : '', ...(t.feeds ?? [])];
  if (klvIn) parts.push(`${klvIn.description} ! ${of.streams[streams.length - 1]}`);
  if (t.framegrab) parts.push(t.framegrab.branch);
  parts.push(...(t.extra ?? []));
  const description = parts.filter(Boolean).join(' ');
  // An on-demand service builds the whole pipeline per client: it gets the description as its launch line.
  const services = of.services?.map((s) => (s.launch !== undefined ? { ...s, launch: `( ${description} )` } : s));
  return {
    composed: {
      description, ...(services ? { services } : {}), finaliseWithEos: Boolean(of.finaliseWithEos), sdp: of.sdp, klvInjector: klvIn?.appsrc,
      ...(klvIn ? { klvStamp: of.klvStamp ?? 'ahead' } : {}),
      ...(eosGate ? { eosGate } : {}),
    },
    fragment: of,
  };
}
