/**
 * The isolation issue 17 keeps with the native engine host, under a real fault: an element that segfaults
 * (native/test-crash-element, `encoderdsegv`: a NULL pointer written through on its streaming thread after N buffers)
 * in one advanced-mode pipeline kills only that pipeline's host, by SIGSEGV, again at every run. The supervisor reports
 * each crash and restarts the pipeline, which plays and sends until the element crashes it again; meanwhile two other
 * pipelines keep their hosts and send without a gap, and the API answers throughout.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, h264Body, hostPidsByPipeline, sleep, startService, udpReceiver, waitFor, type RunningService } from '../helpers/service';
import { openSse, type SseEvent } from '../helpers/sse';

const PLUGIN_DIR = join(__dirname, '../../native/build/test/gst-plugins');
const AFTER_BUFFERS = 60; // 2 s of 30 fps raw video: each run plays, sends, then crashes
const CRASHES = 3;
const VIDEO = 'videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1';

let svc: RunningService;
beforeAll(async () => {
  if (!existsSync(join(PLUGIN_DIR, 'libgstencoderdtest.so'))) {
    throw new Error(`no ${PLUGIN_DIR}/libgstencoderdtest.so: the segfaulting element needs \`node scripts/build-native.mjs --test\``);
  }
  // Engine hosts inherit the service's environment (core/engine/host-process.ts), so they find the element.
  const pluginPath = [process.env.GST_PLUGIN_PATH, PLUGIN_DIR].filter(Boolean).join(':');
  svc = await startService({ env: { ENCODERD_ENGINE_HOST: 'native', GST_PLUGIN_PATH: pluginPath } });
});
afterAll(async () => {
  await svc?.stop();
});

/** The longest silence between from and to: between packets, and before the first and after the last. */
function longestGap(packets: Array<{ at: number }>, from: number, to: number): number {
  const times = [from, ...packets.map((p) => p.at).filter((t) => t > from && t < to), to];
  return Math.max(...times.slice(1).map((t, i) => t - times[i]));
}

it('a segfaulting element kills only its own host, run after run: the others keep sending without a gap, the API answers', async () => {
  const ports: number[] = [];
  const receivers = [];
  for (let i = 0; i < 3; i++) {
    ports.push(await freePort());
    receivers.push(await udpReceiver(ports[i]));
  }
  const [outA, outB, outVictim] = receivers;
  const events = await openSse(svc.port, '/svc/events');
  const answers: Array<{ status: number; ms: number; bystanders?: string[] }> = [];
  let probing = true;
  try {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('bystander-a', `udp://127.0.0.1:${ports[0]}`))).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('bystander-b', `udp://127.0.0.1:${ports[1]}`))).status).toBe(201);
    const raw = `${VIDEO} ! encoderdsegv after-buffers=${AFTER_BUFFERS} ! <svc:h264 /> ! mpegtsmux `
      + `! udpsink host=127.0.0.1 port=${ports[2]}`;
    const created = await svc.api('POST', '/svc/pipeline', { id: 'victim', mode: 'advanced', raw_pipeline: raw });
    expect(created.status, created.text).toBe(201);
    expect(created.body.state).toBe('playing');
    // Read before the element can have crashed its first host: it lets 2 s of buffers through first.
    const before = await hostPidsByPipeline(svc.child.pid!);
    expect([...before.keys()].sort()).toEqual(['bystander-a', 'bystander-b', 'victim']);
    await waitFor(() => outA.packets.length > 20 && outB.packets.length > 20 && outVictim.packets.length > 0, 10000);

    // The API is asked all along, a tenth of a second apart (a pace, not a wait: nothing is waited for).
    const probe = (async () => {
      while (probing) {
        const t = Date.now();
        const r = await svc.api('GET', '/svc/pipeline').catch(() => ({ status: 0, body: [] }));
        const bystanders = (r.body as Array<{ id: string; state: string }>).filter((p) => p.id !== 'victim').map((p) => p.state);
        answers.push({ status: r.status, ms: Date.now() - t, bystanders });
        await sleep(100);
      }
    })();

    const from = Date.now();
    const errorsOf = (id: string) => events.events.filter((e) => e.event === 'pipeline_error' && e.data.pipeline_id === id);
    await waitFor(() => errorsOf('victim').length >= 1, 15000, 20);
    const firstCrashSeen = Date.now();
    await waitFor(() => errorsOf('victim').length >= CRASHES, 15000 * CRASHES, 20);
    const to = Date.now();
    probing = false;
    await probe;

    // Every crash is the element's segfault, reported as the host's death by that signal.
    for (const e of errorsOf('victim')) expect(e.data.message).toMatch(/^engine host exited unexpectedly \(SIGSEGV/);
    const segfaults = svc.logs().split(`encoderdsegv: dereferencing NULL after ${AFTER_BUFFERS} buffers`).length - 1;
    expect(segfaults).toBeGreaterThanOrEqual(CRASHES);

    // Between two crashes the supervisor restarted the pipeline and it played again, in a new host, and sent.
    const victimEvents = events.events.filter((e: SseEvent) => e.data.pipeline_id === 'victim' || e.data.id === 'victim');
    const crashAt = victimEvents.flatMap((e, i) => (e.event === 'pipeline_error' ? [i] : []));
    for (let c = 1; c < CRASHES; c++) {
      const between = victimEvents.slice(crashAt[c - 1] + 1, crashAt[c]);
      expect(between.some((e) => e.event === 'pipeline_status' && e.data.state === 'playing'), `a restart before crash ${c + 1}`).toBe(true);
    }
    expect(outVictim.packets.filter((p) => p.at > firstCrashSeen).length).toBeGreaterThan(20);
    // After the last crash the victim may be in its backoff, with no host: wait for the next one.
    const after = await waitFor(async () => {
      const pids = await hostPidsByPipeline(svc.child.pid!);
      return pids.has('victim') ? pids : undefined;
    }, 10000);
    expect(after.get('victim')).not.toBe(before.get('victim'));

    // The others: no error, the same hosts, playing, and their output never paused.
    expect(errorsOf('bystander-a')).toEqual([]);
    expect(errorsOf('bystander-b')).toEqual([]);
    for (const id of ['bystander-a', 'bystander-b']) {
      expect(after.get(id), id).toBe(before.get(id));
      expect((await svc.api('GET', `/svc/pipeline/${id}`)).body.state, id).toBe('playing');
      expect((await svc.api('GET', `/svc/pipeline/${id}/stats`)).body.stats.host_restarts, id).toBe(0);
    }
    expect(longestGap(outA.packets, from, to)).toBeLessThan(500);
    expect(longestGap(outB.packets, from, to)).toBeLessThan(500);

    // The API answered every request, promptly, while hosts died beside it, and showed the others playing each time.
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.status !== 200 || a.bystanders?.join() !== 'playing,playing')).toEqual([]);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(2000);
  } finally {
    probing = false;
    events.close();
    for (const r of receivers) r.close();
    for (const id of ['victim', 'bystander-a', 'bystander-b']) await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  }
}, 120_000);
