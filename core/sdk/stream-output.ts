/**
 * Rules shared by outputs that send one multiplexed stream over a network transport (UDP, TCP): H.264/H.265 go as
 * MPEG-TS, which carries KLV but has no Codec2 mapping; a codec with no MPEG-TS mapping (AV1) goes as an RTP
 * bundle, which carries Codec2 (spec create rule 4). A transport that carries MPEG-TS only has no bundle to
 * fall back on: the same rule refuses both there.
 */
import type { PipelineView } from './plugin';
import type { CodecInfo, OutputSpec } from './types';

export const AUDIO_NEEDS_AV1 = 'audio over these outputs requires the AV1 video codec';

/** Whether the stream goes as the RTP bundle rather than MPEG-TS. */
export const goesAsRtpBundle = (codec: CodecInfo | null): boolean => Boolean(codec && !codec.containers.includes('mpegts'));

/** MPEG-TS carries KLV as its own stream (stream_type 0x06, 'KLVA'); outputs that carry MPEG-TS only. */
export const tsCarriesKlv = (_output: OutputSpec, video?: CodecInfo | null): boolean => Boolean(video?.containers.includes('mpegts'));

/** Either way a transport output carries KLV: in MPEG-TS as above, or in the RTP bundle as RFC 6597 (rtpklvpay). */
export const streamCarriesKlv = (_output: OutputSpec, video?: CodecInfo | null): boolean => Boolean(video);

/** The messages of a transport output for its streams (audio beside the video codec). */
export function streamOutputErrors(_transport: string, pipeline: PipelineView, codec: CodecInfo | null): string[] {
  const errors: string[] = [];
  // A passed-through stream (no codec yet) is accepted: the core probes its codec before composing and asks again
  // (docs/dataplane.md). Until then audio is refused, as for any codec that goes as MPEG-TS.
  if (pipeline.audio && !goesAsRtpBundle(codec)) errors.push(AUDIO_NEEDS_AV1);
  return errors;
}

/**
 * The messages of a transport output that carries MPEG-TS only (`transport` names it, as its messages should): a codec with no
 * MPEG-TS mapping is refused, and so is audio, for MPEG-TS has no Codec2 mapping. A passed-through stream (codec
 * null) is accepted here and checked again with its probed codec.
 */
export function tsOnlyOutputErrors(transport: string, pipeline: PipelineView, codec: CodecInfo | null): string[] {
  const errors: string[] = [];
  if (goesAsRtpBundle(codec)) errors.push(`output.uri: ${transport} carries MPEG-TS, which cannot carry ${codec!.codec}`);
  if (pipeline.audio) {
    errors.push(`audio cannot be carried over ${transport}: it carries MPEG-TS, which has no Codec2 mapping; use a local RTSP output, or UDP or TCP with AV1`);
  }
  return errors;
}
