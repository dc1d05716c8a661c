/**
 * The framegrab branch of a running pipeline (design §4): a tee in front of the encoder, then a leaky queue (a
 * slow JPEG encoder never holds back the stream), a valve that is closed until framegrabs are started, videorate
 * down to one frame per interval, jpegenc and an appsink the engine host watches. Never a new process: starting
 * and stopping, the interval and the quality are property changes on the running pipeline.
 */
import { capsText, element, type ComposeContext, type LiveChange } from '../sdk';

export interface FramegrabElements {
  valve: string;
  rate: string;
  jpeg: string;
  sink: string;
}

export interface FramegrabSettings {
  interval_seconds: number;
  quality: number;
}

export function framegrabBranch(ctx: ComposeContext): { tee: string; branch: string; elements: FramegrabElements } {
  const tee = ctx.name('fgtee');
  const elements = { valve: ctx.name('fgvalve'), rate: ctx.name('fgrate'), jpeg: ctx.name('fgjpeg'), sink: ctx.name('fgsink') };
  const branch = [
    `${tee}.`,
    element('queue', { leaky: 'downstream', 'max-size-buffers': 2 }),
    // Sticky events pass a closed valve: above all EOS, without which the pipeline never reports its end and
    // every stop of a recording would wait for the stop timeout.
    element('valve', { name: elements.valve, drop: true, 'drop-mode': 'forward-sticky-events' }),
    element('videorate', { 'drop-only': true }),
    element('capsfilter', { name: elements.rate, caps: rateCaps(1) }),
    element('jpegenc', { name: elements.jpeg }),
    // async=false: a closed valve never prerolls this sink, and the pipeline must not wait for it.
    element('appsink', { name: elements.sink, sync: false, async: false, 'max-buffers': 4, drop: true }),
  ].join(' ! ');
  return { tee: element('tee', { name: tee }), branch, elements };
}

/** One frame per interval. */
function rateCaps(intervalSeconds: number): string {
  return capsText('video/x-raw', { framerate: `1/${intervalSeconds}` });
}

/**
 * What the branch does: framegrabs at their interval, snapshots (snapshots.ts) at one a second with the framegrabs'
 * quality when both are wanted (the manager then saves a framegrab only once per interval), or nothing.
 */
export function branchChanges(el: FramegrabElements, fg: FramegrabSettings | null, snapshots: boolean, snapshotQuality: number): LiveChange[] {
  if (!snapshots) return framegrabChanges(el, fg);
  return framegrabChanges(el, { interval_seconds: 1, quality: fg?.quality ?? snapshotQuality });
}

/** The property changes that open the branch with these settings, or close it (null). */
export function framegrabChanges(el: FramegrabElements, fg: FramegrabSettings | null): LiveChange[] {
  if (!fg) return [{ element: el.valve, property: 'drop', value: true }];
  return [
    { element: el.rate, property: 'caps', value: rateCaps(fg.interval_seconds) },
    { element: el.jpeg, property: 'quality', value: fg.quality },
    { element: el.valve, property: 'drop', value: false },
  ];
}
