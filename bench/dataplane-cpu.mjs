/**
 * Question 3, data-plane CPU: a 720p30 H.264 test pipeline (test://ball, x264 at the default quality 5) for
 * 60 s — CPU seconds (utime + stime of every thread, /proc/<pid>/stat) of the engine host against
 * gst-launch-1.0 of the same description, run side by side. Goal ≤ 1.05×. Frames received from each output
 * over the window show both did the same work. Statistics are on (they always are) and watched over
 * `?stats=true` (lib/side-by-side.mjs): the window must carry a pipeline_stats event a second, or the run breaks.
 */
import { main, note, report } from './lib/report.mjs';
import { sideBySide } from './lib/side-by-side.mjs';
import { cpuSeconds, memoryMb } from './lib/proc.mjs';
import { round, sleep } from './lib/stats.mjs';

const BENCH = 'dataplane-cpu';
const QUESTION = '720p30 H.264 test pipeline: engine host CPU s vs gst-launch-1.0';
const WARMUP_S = 3;
const DURATION_S = Number(process.env.BENCH_CPU_SECONDS ?? 60);

await main(BENCH, QUESTION, async () => {
  const { svc, hostPid, gst, rxEnc, rxGst, watcher, description, removed } = await sideBySide({ width: 1280, height: 720, fps: 30 });
  await sleep(WARMUP_S * 1000);
  const t0 = performance.now();
  const start = { host: cpuSeconds(hostPid), gst: cpuSeconds(gst.pid), service: cpuSeconds(svc.pid) };
  note(`measuring ${DURATION_S} s`);
  await sleep(DURATION_S * 1000);
  const t1 = performance.now();
  const end = { host: cpuSeconds(hostPid), gst: cpuSeconds(gst.pid), service: cpuSeconds(svc.pid) };
  const seconds = (t1 - t0) / 1000;
  const framesEnc = rxEnc.framesBetween(t0, t1).length;
  const framesGst = rxGst.framesBetween(t0, t1).length;
  const statsEvents = watcher.between('pipeline_stats', t0, t1);
  // One sample a second; a couple short allows for the window's edges and a late timer, not for a silent stream.
  if (statsEvents.length < Math.floor(seconds) - 2) {
    throw new Error(`the ?stats=true stream carried ${statsEvents.length} pipeline_stats events in ${round(seconds, 1)} s`);
  }
  const lastStats = statsEvents.at(-1).data;
  // Null figures would mean the counters were never installed: statistics off in all but name.
  if (lastStats.output?.frames == null || lastStats.output?.bytes == null) throw new Error(`pipeline_stats without measured output: ${JSON.stringify(lastStats)}`);
  const enc = end.host - start.host;
  const base = end.gst - start.gst;
  const ratio = enc / base;
  report({
    bench: BENCH,
    question: QUESTION,
    duration_s: round(seconds, 1),
    description,
    baseline_removed: removed,
    encoderd: {
      host_cpu_s: round(enc), api_process_cpu_s: round(end.service - start.service), fps_out: round(framesEnc / seconds, 1),
      host_rss_mb: round(memoryMb(hostPid).rss, 1),
      stats_events: statsEvents.length,
      stats_last: { fps: lastStats.output?.fps, fps_avg: lastStats.output?.fps_avg, dropped_frames: lastStats.dropped_frames, latency_ms: lastStats.latency_ms },
    },
    baseline: { cpu_s: round(base), fps_out: round(framesGst / seconds, 1), rss_mb: round(memoryMb(gst.pid).rss, 1) },
    ratio: round(ratio, 3),
    figure: `${round(ratio, 3)}× (${round(enc)} vs ${round(base)} CPU s over ${round(seconds, 0)} s; stats on, ${statsEvents.length} pipeline_stats events)`,
    goal: '≤ 1.05×',
    pass: ratio <= 1.05,
  });
});
