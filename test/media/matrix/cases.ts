/**
 * The receiver matrix (issue 14, "A matrix in the suite"): every combination of video, source kind, output and
 * the two extras (KLV from a geolocation, Codec2 audio). Nothing here says which combinations are allowed: each one
 * is sent to the service, and its answer decides. What is fixed is only how a combination is built and judged.
 */

/** Frames of the matrix: small and slow, so a dozen pipelines at once fit on two cores. */
export const FRAME = { width: 320, height: 240, fps: 10 } as const;
/** The codec plugins keep a keyframe every fps×2 frames (docs/dataplane.md): 20 here. */
export const GOP = FRAME.fps * 2;

export type Codec = 'h264' | 'h265' | 'av1';
/** `pt-<codec>`: no encoding, the source's stream (of that codec) passed through. */
export type Video = Codec | 'pt-h264' | 'pt-h265' | 'pt-av1';
export type SourceKind = 'test' | 'rtsp' | 'udp' | 'file';
export type Output = 'rtsp' | 'udp' | 'mcast' | 'tcp-listen' | 'tcp-connect' | 'ts' | 'mkv' | 'mp4';
export type Extra = 'none' | 'klv' | 'audio' | 'klv+audio';

export const VIDEOS: Video[] = ['h264', 'h265', 'av1', 'pt-h264', 'pt-h265', 'pt-av1'];
export const SOURCES: SourceKind[] = ['test', 'rtsp', 'udp', 'file'];
export const OUTPUTS: Output[] = ['rtsp', 'udp', 'mcast', 'tcp-listen', 'tcp-connect', 'ts', 'mkv', 'mp4'];
export const EXTRAS: Extra[] = ['none', 'klv', 'audio', 'klv+audio'];

/** How each output is judged: an RTSP output by two receivers, over TCP and over UDP. */
export const OUTPUT_LABEL: Record<Output, string> = {
  rtsp: 'RTSP', udp: 'UDP', mcast: 'multicast (lo)', 'tcp-listen': 'TCP listen', 'tcp-connect': 'TCP connect',
  ts: '.ts', mkv: '.mkv', mp4: '.mp4',
};

export function codecOf(video: Video): Codec {
  return (video.startsWith('pt-') ? video.slice(3) : video) as Codec;
}

export function isPassthrough(video: Video): boolean {
  return video.startsWith('pt-');
}

export interface Case {
  id: string;
  video: Video;
  source: SourceKind;
  output: Output;
  extra: Extra;
}

/**
 * Which combinations are built. Encoded video: every source kind × every output × every extra. Passed through: the
 * source carries the codec, so a test pattern (raw) stands for "nothing to pass through" and UDP MPEG-TS has no AV1
 * source (AV1 has no MPEG-TS mapping a sender could use: that is not a request the service could answer). The
 * extras are crossed with every source kind, encoded and passed through alike (until 2026-11-26 only with one source
 * kind each: 312 cases then, 672 now, 115 → 191 s).
 */
export function allCases(): Case[] {
  const cases: Case[] = [];
  let n = 0;
  for (const video of VIDEOS) {
    for (const source of SOURCES) {
      if (isPassthrough(video) && source === 'udp' && codecOf(video) === 'av1') continue;
      if (isPassthrough(video) && source === 'test' && video !== 'pt-h264') continue; // one "test:// passed through" row
      for (const output of OUTPUTS) {
        for (const extra of EXTRAS) {
          n += 1;
          cases.push({ id: `mx${n}`, video, source, output, extra });
        }
      }
    }
  }
  return cases;
}

export function caseLabel(c: Case): string {
  return `${c.video} · ${c.source} → ${c.output}${c.extra === 'none' ? '' : ` + ${c.extra}`}`;
}

export function hasKlv(extra: Extra): boolean {
  return extra === 'klv' || extra === 'klv+audio';
}

export function hasAudio(extra: Extra): boolean {
  return extra === 'audio' || extra === 'klv+audio';
}

/**
 * Where a KLV stream is expected at the receiver when the pipeline has a geolocation: every output that can carry
 * one (issue 14: MPEG-TS over UDP/TCP and .ts files; the RTSP server's own KLV track; the AV1 RTP bundle), not
 * Matroska or MP4 (GStreamer 1.22's matroskamux and mp4mux take no meta/x-klv).
 */
export function klvExpected(c: Case): boolean {
  return hasKlv(c.extra) && !['mkv', 'mp4'].includes(c.output);
}
