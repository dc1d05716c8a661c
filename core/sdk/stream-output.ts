/**
 * Rules shared by outputs that send one multiplexed stream over a network transport (UDP, TCP). The video codec
 * decides how the stream goes: in the output's container (`mux`; MPEG-TS for the built-ins) when the codec has a
 * mapping into it (receivers of such a codec expect it), as an RTP bundle otherwise (each stream its own payload
 * type). An audio stream must fit that decision: the bundle carries any codec with an RTP mapping, the container only
 * an audio codec whose `containers` include it (spec create rule 4). A transport that carries its container only has
 * no bundle to fall back on. The refusals are the audio codec's own words when it declares them (CodecInfo.refusals).
 */
import type { PipelineView } from './plugin';
import type { CodecInfo, OutputSpec } from './types';

/** The container a transport output multiplexes into: its `containers` name (CodecInfo.containers) and how messages call it. */
export interface StreamMux {
  container: string;
  label: string;
}

/** Whether the stream goes as the RTP bundle rather than in the output's container. */
export const goesAsRtpBundle = (codec: CodecInfo | null, mux: StreamMux): boolean => Boolean(codec && !codec.containers.includes(mux.container));

/**
 * carriesKlv for an output that carries its container only, when that container carries KLV as a stream of its own
 * (MPEG-TS: stream_type 0x06, 'KLVA'): KLV goes where the video goes.
 */
export const muxCarriesKlv = (mux: StreamMux) => (_output: OutputSpec, video?: CodecInfo | null): boolean => Boolean(video?.containers.includes(mux.container));

/** Either way a transport output carries KLV: in MPEG-TS as above, or in the RTP bundle as RFC 6597 (rtpklvpay). */
export const streamCarriesKlv = (_output: OutputSpec, video?: CodecInfo | null): boolean => Boolean(video);

/** Whether an audio codec goes into the container beside the video (a view without its audio codec: it does not). */
const audioFits = (audio: CodecInfo | undefined, mux: StreamMux): boolean => Boolean(audio?.containers.includes(mux.container));

/** The name messages give an audio codec the view does not name (a caller of before PipelineView.audioCodec). */
const audioName = (pipeline: PipelineView): string => pipeline.audioCodec?.codec ?? (typeof pipeline.audio?.codec === 'string' ? pipeline.audio.codec : 'the audio codec');

/** The messages of a transport output for its streams (audio beside the video codec). */
export function streamOutputErrors(_transport: string, pipeline: PipelineView, codec: CodecInfo | null, mux: StreamMux): string[] {
  if (!pipeline.audio || goesAsRtpBundle(codec, mux) || audioFits(pipeline.audioCodec, mux)) return [];
  // A passed-through stream (no codec yet) is asked again once its codec is probed (docs/dataplane.md); until then
  // audio the container cannot carry is refused, as beside any codec that goes in it.
  return [pipeline.audioCodec?.refusals?.muxedVideo
    ?? `audio of ${audioName(pipeline)} has no ${mux.label} mapping: over these outputs it needs a video codec that goes as an RTP bundle`];
}

/**
 * The messages of a transport output that carries MPEG-TS only (`transport` names it, as its messages should): a video
 * codec with no MPEG-TS mapping is refused, and so is audio (these outputs send the video alone). A passed-through
 * stream (codec null) is accepted here and checked again with its probed codec.
 */
export function tsOnlyOutputErrors(transport: string, pipeline: PipelineView, codec: CodecInfo | null, mux: StreamMux): string[] {
  const errors: string[] = [];
  if (goesAsRtpBundle(codec, mux)) errors.push(`output.uri: ${transport} carries ${mux.label}, which cannot carry ${codec!.codec}`);
  if (pipeline.audio) {
    const own = pipeline.audioCodec?.refusals?.muxOnly;
    errors.push(own ? own.replaceAll('{output}', transport) : `audio cannot be carried over ${transport}: it carries the video alone; use a local RTSP output`);
  }
  return errors;
}
