/**
 * Which segment files to delete: dashsink on GStreamer 1.22 never deletes one (it has no max-files), so a pipeline
 * that runs for a day would fill the disk. Pure: names in, names out.
 */

/**
 * How far behind the live edge segments stay on disk. Players start behind the edge by their own default (GStreamer's
 * dashdemux 10 s, dash.js 4 segments), and the MPD names no window (dashsink writes no timeShiftBufferDepth).
 */
export const KEEP_SECONDS = 30;

/** Segments kept behind the one being written, for segments of `segment` seconds: 30 s, and at least 5. */
export const keptSegments = (segment: number): number => Math.max(5, Math.ceil(KEEP_SECONDS / segment));

/** dashsink names a segment `<representation>_<number>.<ext>`; the representation is the pad's name. */
const SEGMENT = /^video_0_(\d{1,9})\.ts$/;

/** The segment names among `names` that are more than `keep` behind the newest (which is still being written). */
export function expiredSegments(names: readonly string[], keep: number): string[] {
  const numbered = names.flatMap((name) => {
    const m = SEGMENT.exec(name);
    return m ? [{ name, n: Number(m[1]) }] : [];
  });
  if (numbered.length === 0) return [];
  const newest = numbered.reduce((max, s) => Math.max(max, s.n), 0);
  return numbered.filter((s) => s.n < newest - keep).map((s) => s.name);
}
