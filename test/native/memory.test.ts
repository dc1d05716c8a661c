// Regression tests for what the engine host's heap keeps over many cycles (issue 16), judged by glibc's own
// figures and VmRSS: a child process drives the real addon (test/fixtures/memory-cycles.js) and samples after each
// measured cycle; a least-squares line through the samples gives the growth per cycle, which a single pair of
// samples would not (each one jitters with what the pipeline has in flight).
//
// - Live bitrate changes of H.265: x265enc 1.22 closes and opens x265 at each, and libx265 3.5 leaks its SAO row
//   buffers at each open when SAO is off (the ultrafast and superfast presets): 75 blocks a change at 320×240, so
//   the codec plugin turns SAO on (plugins/codecs/h265). What is left is x265's own (docs/operations.md). Counted
//   with glibc's mtrace in a program of its own (native/test-x265-reopen).
// - Play → destroy cycles (stop/play, rebuilds) and on-demand RTSP media built and torn down for each viewer: no
//   leak, but glibc keeps the freed pages in its arenas; the host trims after each teardown
//   (core/engine/host-main.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import av1 from '../../plugins/codecs/av1';
import h264 from '../../plugins/codecs/h264';
import h265 from '../../plugins/codecs/h265';
import { ROOT } from '../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'encoderd-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes per cycle of the C heap in use and of VmRSS, from the samples after each measured cycle, and the RSS one
 * more malloc_trim gave back at the end. */
interface Growth { inUse: number; rss: number; trimmedBack: number }

function slope(ys: number[]): number {
  const n = ys.length;
  const mx = (n - 1) / 2;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, i) => {
    num += (i - mx) * (y - my);
    den += (i - mx) ** 2;
  });
  return num / den;
}

function runCycles(args: string[]): Promise<Growth> {
  // The engine host's own environment (core/engine/host-process.ts).
  const env = { ...process.env, MALLOC_ARENA_MAX: '2', GST_DEBUG: '0' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'test/fixtures/memory-cycles.js'), join(ROOT, 'native'), ...args], { env });
    let stdout = '';
    let stderr = '';
    const killer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.stdout.on('data', (d: Buffer) => { stdout += d; });
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      if (code !== 0) return reject(new Error(`memory-cycles ${args[0]} exited ${code}\n${stderr.slice(-2000)}`));
      const r = JSON.parse(stdout.trim().split('\n').pop() as string) as { inUse: number[]; rss: number[]; trimmed: [number, number] };
      resolve({ inUse: slope(r.inUse), rss: slope(r.rss), trimmedBack: r.trimmed[0] - r.trimmed[1] });
    });
  });
}

const kB = (b: number) => `${Math.round(b / 1024)} kB`;

/** Blocks libx265 allocated and never freed while native/test-x265-reopen made <changes> live bitrate changes under
 * glibc's mtrace, with the x265enc option string the test gives it. */
function x265BlocksKept(optionString: string, changes: number): Promise<number> {
  const trace = join(dir, `mtrace-${optionString}-${changes}`);
  const env = { ...process.env, MALLOC_ARENA_MAX: '2', GST_DEBUG: '0', MALLOC_TRACE: trace, LD_PRELOAD: 'libc_malloc_debug.so.0' };
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'native/build/test/x265-reopen'), [optionString, '20', String(changes)], { env });
    let stderr = '';
    const killer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      if (code !== 0) return reject(new Error(`x265-reopen exited ${code}\n${stderr.slice(-2000)}`));
      // mtrace lines: "@ <caller> + <address> <size>" for an allocation, "@ <caller> - <address>" for a free.
      const live = new Map<string, string>();
      for (const line of readFileSync(trace, 'utf8').split('\n')) {
        const m = /^@ (\S+?):.* ([+-]) (0x[0-9a-f]+)/.exec(line);
        if (m?.[2] === '+') live.set(m[3], m[1]);
        else if (m) live.delete(m[3]);
      }
      resolve([...live.values()].filter((caller) => caller.includes('libx265')).length);
    });
  });
}

describe('engine host memory over live H.265 bitrate changes (glibc mtrace)', () => {
  it('each change leaves one block of x265\'s own, not its SAO buffers', async () => {
    // The plugin's own encoder (superfast: SAO off by the preset, on by the plugin).
    const enc = h265.encoder({ codec: 'h265', bitrate: 300, width: 320, height: 240, fps: 15, quality: 5 }, { name: () => 'venc' } as never);
    expect(enc.description).toContain('speed-preset="superfast"');
    const option = /option-string="([^"]*)"/.exec(enc.description)?.[1] as string;
    expect(option).toBe('sao=1');
    // Blocks kept after 40 changes less those after 10: what the open encoder holds cancels out. Counted, not
    // sampled: the heap figures of a live pipeline jittered past the leak itself under a full suite's load.
    const [on10, on40, off10, off40] = await Promise.all([x265BlocksKept(option, 10), x265BlocksKept(option, 40),
      x265BlocksKept('sao=0', 10), x265BlocksKept('sao=0', 40)]);
    const perChange = (a: number, b: number) => (b - a) / 30;
    // Measured: 1 a change with SAO on (x265_encoder_open's x265_param, 1 168 bytes, that no close frees); 75 with
    // SAO off (SAO::create's row buffers, one set per plane and CTU row at 320×240), the leak the plugin avoids.
    expect(perChange(on10, on40), `SAO on: ${on10} → ${on40} blocks`).toBeLessThanOrEqual(2);
    expect(perChange(off10, off40), `SAO off: ${off10} → ${off40} blocks`).toBeGreaterThan(20);
  }, 90_000);
});

describe.concurrent('engine host memory over many cycles (glibc heap, VmRSS)', () => {
  // x264enc and av1enc change the rate in the open encoder (x264_encoder_reconfig, aom_codec_enc_config_set): no
  // re-open, so nothing per change should stay. Measured 2026-11-26 (390 changes at 320×240): x264 261 B and AV1
  // 41 B a change in use, i.e. flat; x265's re-open with SAO off, the leak of the test above, was 14–23 kB a change.
  for (const plugin of [h264, av1]) {
    it(`live ${plugin.name} bitrate changes keep the heap in use flat`, async () => {
      const encoding = { codec: plugin.name, bitrate: 300, width: 320, height: 240, fps: 15, quality: 5 };
      const enc = plugin.encoder(encoding as never, { name: () => 'venc' } as never);
      const [change] = plugin.liveChange?.('bitrate', 400, enc.element) ?? [];
      expect(change, 'the codec changes its bitrate live').toBeTruthy();
      const description = 'videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=15/1 ! ' +
        `${enc.description} ! fakesink`;
      const g = await runCycles(['live-bitrate', description, '20', '150', change.element, change.property]);
      // A slope over 150 samples: one 320×240 frame more or less in flight moves it by under 1 kB a change.
      expect(g.inUse, `in use: ${kB(g.inUse)} a change, RSS ${kB(g.rss)}`).toBeLessThan(4 * 1024);
    }, 90_000);
  }

  it('play → destroy cycles with a malloc_trim after each leave a few kB of heap each', async () => {
    // The recording's own shape (`rec` of bench/soak.mjs, without its KLV input: an appsrc the host feeds).
    const rec = 'mpegtsmux name=mux ! filesink location=' + join(dir, 'rec.ts') + ' videotestsrc is-live=true pattern=ball ! ' +
      'videoconvert ! videoscale ! videorate ! video/x-raw,width=320,height=240,framerate=15/1 ! tee name=fgtee ! queue ! ' +
      'video/x-raw,format=I420 ! x264enc bitrate=300 tune=zerolatency speed-preset=veryfast key-int-max=30 ! ' +
      'video/x-h264,profile=high ! h264parse ! queue ! mux. fgtee. ! queue leaky=downstream max-size-buffers=2 ! ' +
      'valve drop=true drop-mode=forward-sticky-events ! videorate drop-only=true ! video/x-raw,framerate=1/1 ! jpegenc ! ' +
      'appsink sync=false async=false max-buffers=4 drop=true';
    const g = await runCycles(['play-destroy', rec, '10', '50', 'trim']);
    // Measured (50–60 cycles): 3–4 kB a cycle in use (GStreamer's caches, levelling off). The RSS a cycle of this
    // Node process is not asserted: side by side, with a trim after each cycle and without, it gave 17–24 and 68–72
    // kB in most runs but 24 and 16 in one, and 43 with the trim under a full suite (V8's heap and thread stacks move
    // it as much as glibc's arenas). That the trim gives pages back is asserted by the on-demand test below; the
    // hosts' RSS over hours is the soak's (bench/soak.mjs).
    expect(g.inUse, `in use: ${kB(g.inUse)} a cycle, RSS ${kB(g.rss)}`).toBeLessThan(10 * 1024);
  }, 90_000);

  it('on-demand RTSP sessions leave a few kB of heap each, and freed pages that a trim gives back', async () => {
    // The on-demand mount's own shape (`ondemand` of bench/soak.mjs).
    const launch = '( videotestsrc is-live=true pattern=ball ! videoconvert ! videoscale ! videorate ! ' +
      'capsfilter caps="video/x-raw,width=320,height=240,framerate=15/1" ! capsfilter caps="video/x-raw,format=I420" ! ' +
      'x264enc bitrate=300 tune=zerolatency speed-preset=veryfast key-int-max=30 ! capsfilter caps="video/x-h264,profile=high" ! ' +
      'h264parse config-interval=-1 ! rtph264pay name=pay0 pt=96 config-interval=0 )';
    const g = await runCycles(['rtsp-launch', launch, '5', '30']);
    // Measured (30 sessions): the heap in use 3–8 kB a session, levelling off; a trim at the end gave back 10 MB.
    // The RSS per session is not asserted: over 30 sessions it is dominated by the RTSP server's threads and V8
    // (41–218 kB a session, with or without a trim after each).
    // How much a trim gives back depends on what the arenas kept (10 MB on the branch it was written on, under 1 MB
    // once the RTSP server's code was shared with the native host): that it gives pages back is what is asserted.
    expect(g.trimmedBack, `what a trim gave back after 30 sessions: ${kB(g.trimmedBack)}`).toBeGreaterThan(0);
    expect(g.inUse, `in use: ${kB(g.inUse)} a session`).toBeLessThan(16 * 1024);
  }, 90_000);
});

describe('the API process\'s JavaScript heap (V8)', () => {
  it('v8LowMemory gives back the pages a burst of garbage made V8 grow into', async () => {
    // A child of its own: the figures are the whole isolate's. 50 MB of short-lived objects grow V8's heap; V8 keeps
    // those pages after its own collections, and LowMemoryNotification hands them back (core/app.ts calls it every
    // 5 minutes in the API process).
    const script = `
      const native = require(${JSON.stringify(join(ROOT, 'native/build/Release/encoderd.node'))});
      let keep = [];
      for (let i = 0; i < 400000; i++) { keep.push({ i, s: 'x' + i, a: [i] }); if (keep.length > 300000) keep = []; }
      keep = null;
      const before = process.memoryUsage().heapTotal;
      const told = native.v8LowMemory();
      const after = process.memoryUsage().heapTotal;
      process.stdout.write(JSON.stringify({ told, before, after }));`;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`child exited ${code}`))));
    });
    const { told, before, after } = JSON.parse(out) as { told: boolean; before: number; after: number };
    expect(told).toBe(true);
    expect(before).toBeGreaterThan(30 * 1048576);
    // What is left is the child's live heap: a few MB.
    expect(after).toBeLessThan(before / 3);
  });
});
