/**
 * Question 4, memory: the engine host's resident set (VmRSS, /proc/<pid>/status) against gst-launch-1.0 of the
 * same pipeline (720p30 H.264 test pattern), side by side. Goal ≤ +40 MB. Sampled every second once both
 * have settled; the medians of the samples are compared, peaks (VmHWM) reported. An empty Node process is
 * measured too: most of the difference is the runtime itself.
 */
import { spawn } from 'node:child_process';
import { atEnd, main, note, report } from './lib/report.mjs';
import { sideBySide } from './lib/side-by-side.mjs';
import { memoryMb } from './lib/proc.mjs';
import { median, round, sleep } from './lib/stats.mjs';

const BENCH = 'memory';
const QUESTION = 'engine host RSS vs gst-launch-1.0 RSS, same pipeline';
const SETTLE_S = 5;
const SAMPLES = Number(process.env.BENCH_MEMORY_SAMPLES ?? 10);

await main(BENCH, QUESTION, async () => {
  const empty = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  atEnd(() => empty.kill('SIGKILL'));
  const { hostPid, gst, description, removed } = await sideBySide({ width: 1280, height: 720, fps: 30 });
  await sleep(SETTLE_S * 1000);
  note(`sampling ${SAMPLES} s`);
  const enc = [];
  const base = [];
  for (let i = 0; i < SAMPLES; i++) {
    enc.push(memoryMb(hostPid).rss);
    base.push(memoryMb(gst.pid).rss);
    await sleep(1000);
  }
  const diff = median(enc) - median(base);
  report({
    bench: BENCH,
    question: QUESTION,
    description,
    baseline_removed: removed,
    encoderd: { host_rss_mb: round(median(enc), 1), host_peak_mb: round(memoryMb(hostPid).hwm, 1) },
    baseline: { rss_mb: round(median(base), 1), peak_mb: round(memoryMb(gst.pid).hwm, 1) },
    empty_node_rss_mb: round(memoryMb(empty.pid).rss, 1),
    difference_mb: round(diff, 1),
    figure: `+${round(diff, 1)} MB (${round(median(enc), 1)} vs ${round(median(base), 1)} MB)`,
    goal: '≤ +40 MB',
    pass: diff <= 40,
  });
});
