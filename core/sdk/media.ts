/** Fragments that several source plugins need after a demuxer or a network source. */
import { caps, element } from './quote';
import type { ComposeContext, OutputStream, RawAudioFormat } from './types';

/**
 * The first video stream of whatever comes in: decoded to raw video (decode), or parsed and left encoded
 * (passthrough). A capsfilter picks the video stream, so a demuxer's audio or KLV pads stay unlinked (their
 * data is dropped) instead of being linked by accident; the description's delayed linking tries each new pad.
 */
export function videoTail(ctx: ComposeContext, decode: boolean): string {
  return decode ? decodedTails(ctx, false).video : parsedTails(ctx).video;
}

/**
 * videoTail(decode = false), and the reference (`parse.`) to the KLV pad the same parsebin exposes when the stream
 * carries KLV (meta/x-klv from tsdemux needs no parser): SourceFragment.klv.
 */
export function parsedTails(ctx: ComposeContext): { video: string; klv: string } {
  const encoded = ctx.encodedVideoCaps ?? [];
  const name = ctx.name('parse');
  const parse = element('parsebin', { name });
  return { video: encoded.length ? `${parse} ! ${element('capsfilter', { caps: encoded.join(';') })}` : parse, klv: `${name}.` };
}

/** decodebin's default final caps (1.22), plus KLV: without it decodebin finds no decoder and drops the KLV pad. */
const DECODE_WITH_KLV = [
  'video/x-raw(ANY)', 'audio/x-raw(ANY)', 'text/x-raw(ANY)', 'subpicture/x-dvd', 'subpicture/x-dvb', 'subpicture/x-xsub',
  'subpicture/x-pgs', 'closedcaption/x-cea-608', 'closedcaption/x-cea-708', 'application/x-onvif-metadata', 'meta/x-klv',
].join('; ');

/**
 * videoTail(decode = true), and when audio is asked the audio of the same stream from the same decodebin: its
 * `name.` reference picks the pad whose caps are raw audio (a stream without audio simply never links it). With
 * `klv`, decodebin also exposes a KLV stream (meta/x-klv, e.g. from tsdemux) and `klv` is the reference to link it
 * from (SourceFragment.klv); a stream without KLV never links it.
 */
export function decodedTails(ctx: ComposeContext, audio: boolean, klv = false): { video: string; audio?: string; klv?: string } {
  const dec = ctx.name('dec');
  const video = `${element('decodebin', { name: dec, ...(klv ? { caps: DECODE_WITH_KLV } : {}) })} ! ${caps('video/x-raw')}`;
  return { video, ...(audio ? { audio: `${dec}. ! ${caps('audio/x-raw')}` } : {}), ...(klv ? { klv: `${dec}.` } : {}) };
}

/**
 * A capsfilter fixing raw audio to a format (an audio codec's `rawAudio`): interleaved, the layout every encoder and
 * the inter-pipeline audio elements take. What the core's audio chain ends in, and what a source that hands its
 * audio from one pipeline to another (SourcePlugin.fragment's `audioFormat`) fixes on both ends.
 */
export function rawAudioCaps(format: RawAudioFormat): string {
  return caps('audio/x-raw', { format: format.format, layout: 'interleaved', rate: format.rate, channels: format.channels });
}

/** The payload type of the first stream of an output; the next stream takes the next (video 96, audio 97, …). */
export const FIRST_DYNAMIC_PT = 96;

export interface RtpBundle {
  /** The rtpfunnel every stream's payloader links into; its src pad carries the bundle to one sink. */
  funnel: string;
  /** For each stream, `queue ! <parser> ! <payloader> ! funnel.`. */
  chains: string[];
  /** For each stream, what its SDP m= line needs besides port and transport. */
  media: Array<{ media: 'video' | 'audio' | 'application'; pt: number; encodingName: string; clockRate: number; channels?: number; fmtp?: string }>;
}

/**
 * Several RTP streams on one transport (one UDP port, one TCP connection): each stream is payloaded with its own
 * payload type and SSRC, and an rtpfunnel merges them. A receiver tells them apart by payload type. Every stream
 * must have a known codec (an RTP mapping); callers validate that first.
 */
export function rtpBundle(ctx: ComposeContext, streams: OutputStream[]): RtpBundle {
  const funnel = ctx.name('rtpbundle');
  const chains: string[] = [];
  const media: RtpBundle['media'] = [];
  streams.forEach((s, i) => {
    const codec = s.codec;
    if (!codec) throw new Error('an RTP output needs a known codec for every stream');
    const pt = FIRST_DYNAMIC_PT + i;
    chains.push(`queue ! ${codec.rtp.payloader(ctx, ctx.name('pay'), pt)} ! ${funnel}.`);
    media.push({
      media: s.media === 'klv' ? 'application' : s.media, pt, encodingName: codec.rtp.encodingName, clockRate: codec.rtp.clockRate,
      ...(codec.rtp.channels ? { channels: codec.rtp.channels } : {}),
      ...(s.fmtp ? { fmtp: s.fmtp } : {}),
    });
  });
  return { funnel: element('rtpfunnel', { name: funnel }), chains, media };
}
