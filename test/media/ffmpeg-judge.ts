/**
 * ffmpeg as the judge (issue 14): GStreamer's decoders conceal damage that ffmpeg reports. Reads a URL or a file
 * with `ffmpeg -i <input> [-frames:v N] -f null -` and returns what it reports after the first decoded frame (the
 * first keyframe; what comes before it is a joiner's wait, not damage): every error line, and the warnings and notes
 * it gives for a damaged picture ("corrupt decoded frame", "concealing … errors"). `showinfo` logs each frame at
 * info level; `-loglevel level` tags every line with its level.
 */
import { run } from '../helpers/service';

export interface FfmpegVerdict {
  errors: string[];
  decoded: number;
  keyframes: number;
  log: string;
}

/** `frames` undefined decodes the whole input (a file). */
export async function ffmpegErrors(input: string[], frames?: number, timeoutMs = 20000): Promise<FfmpegVerdict> {
  const r = await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'level+info', ...input,
    ...(frames === undefined ? [] : ['-frames:v', String(frames)]), '-vf', 'showinfo', '-f', 'null', '-'], { timeoutMs });
  const lines = r.stderr.split('\n');
  const frameLines = lines.filter((l) => /Parsed_showinfo.*\bn:\s*\d+ /.test(l));
  const first = lines.findIndex((l) => /Parsed_showinfo.*\bn:\s*0 /.test(l));
  const errors = first < 0 ? [] : lines.slice(first).filter((l) => /\[(error|fatal|panic)\]|corrupt decoded frame|concealing \d+ DC/.test(l));
  return { errors, decoded: frameLines.length, keyframes: frameLines.filter((l) => /iskey:1/.test(l)).length, log: r.stderr };
}
