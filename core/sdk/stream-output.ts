/**
 * Rules shared by outputs that send one multiplexed stream over a network transport (UDP, TCP). The video codec
 * decides how the stream goes: as MPEG-TS when it has an MPEG-TS mapping (receivers of such a codec expect MPEG-TS), as
 * an RTP bundle otherwise (each stream its own payload type). An audio stream must fit that decision: the bundle
 * carries any codec with an RTP mapping, MPEG-TS only an audio codec whose `containers` include it (spec create
 * rule 4). A transport that carries MPEG-TS only has no bundle to fall back on. The refusals are the audio codec's own
 * words when it declares them (CodecInfo.refusals).
 */
import type { PipelineView } from './plugin';
import type { CodecInfo, OutputSpec } from './types';

/** Whether the stream goes as the RTP bundle rather than MPEG-TS. */
export const goesAsRtpBundle = (codec: CodecInfo | null): boolean => Boolean(codec && !codec.containers.includes('mpegts'));

/** MPEG-TS carries KLV as its own stream (stream_type 0x06, 'KLVA'); outputs that carry MPEG-TS only. */
export const tsCarriesKlv = (_output: OutputSpec, video?: CodecInfo | null): boolean => Boolean(video?.containers.includes('mpegts'));

/** Either way a transport output carries KLV: in MPEG-TS as above, or in the RTP bundle as RFC 6597 (rtpklvpay). */
export const streamCarriesKlv = (_output: OutputSpec, video?: CodecInfo | null): boolean => Boolean(video);

/** Whether an audio codec goes into MPEG-TS beside the video (a view without its audio codec: it does not). */
const audioFitsTs = (audio: CodecInfo | undefined): boolean => Boolean(audio?.containers.includes('mpegts'));

/** The name messages give an audio codec the view does not name (a caller of before PipelineView.audioCodec). */
const audioName = (pipeline: PipelineView): string => pipeline.audioCodec?.codec ?? (typeof pipeline.audio?.codec === 'string' ? pipeline.audio.codec : 'the audio codec');

/** The messages of a transport output for its streams (audio beside the video codec). */
export function streamOutputErrors(_transport: string, pipeline: PipelineView, codec: CodecInfo | null): string[] {
  if (!pipeline.audio || goesAsRtpBundle(codec) || audioFitsTs(pipeline.audioCodec)) return [];
  // A passed-through stream (no codec yet) is asked again once its codec is probed (docs/dataplane.md); until then
  // audio that MPEG-TS cannot carry is refused, as beside any codec that goes as MPEG-TS.
  return [pipeline.audioCodec?.refusals?.mpegtsVideo
    ?? `audio of ${audioName(pipeline)} has no MPEG-TS mapping: over these outputs it needs a video codec that goes as an RTP bundle`];
}

/**
 * The messages of a transport output that carries MPEG-TS only (`transport` names it, as its messages should): a video
 * codec with no MPEG-TS mapping is refused, and so is audio (these outputs send the video alone). A passed-through
 * stream (codec null) is accepted here and checked again with its probed codec.
 */
export function tsOnlyOutputErrors(transport: string, pipeline: PipelineView, codec: CodecInfo | null): string[] {
  const errors: string[] = [];
  if (goesAsRtpBundle(codec)) errors.push(`output.uri: ${transport} carries MPEG-TS, which cannot carry ${codec!.codec}`);
  if (pipeline.audio) {
    const own = pipeline.audioCodec?.refusals?.mpegtsOnly;
    errors.push(own ? own.replaceAll('{output}', transport) : `audio cannot be carried over ${transport}: it carries the video alone; use a local RTSP output`);
  }
  return errors;
}
