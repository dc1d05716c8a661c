/**
 * Engine host chaos (issue 16): engine hosts SIGKILLed at random under light load. Every pipeline plays again
 * within 5 s of its kill, and the API's p99 latency over many small GETs stays within 2× of the calm figure
 * measured in the same test, in calm windows that alternate with the chaos windows. The issue asks for 5 minutes;
 * the suite runs ~50 s of it, and `HOST_CHAOS_SECONDS=300` runs the whole (figures in docs/benchmarks.md).
 */
import { Agent, request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostPidsByPipeline, startService, waitFor, type RunningService } from '../helpers/service';

const IDS = ['c1', 'c2', 'c3', 'c4'];
const CALM_MS = 10_000;
const CHAOS_MS = Number(process.env.HOST_CHAOS_SECONDS ?? 50) * 1000;
const RECOVERY_LIMIT_MS = 5000;
/** Calm and chaos windows alternate, one pair per 5 s of chaos. */
const WINDOWS = Math.max(1, Math.round(CHAOS_MS / 5000));

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

// Kept-alive connections, as a console's would be: the latency measured is the API's, not TLS handshakes'.
const agent = new Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false });
function timedGet(path: string): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: svc.port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Which window a GET's answer falls in: calm (no host killed or restarting), chaos (kills), or neither (waiting for
 * the last window's restarts to finish). */
type Phase = 'calm' | 'chaos' | null;

/**
 * Light load: two clients, each sending a small GET every 5 ms (or as soon as its last answer came, when later)
 * while `going()`; each latency kept under the phase it was answered in. Back to back they would saturate both cores
 * and measure their own queue.
 */
async function load(going: () => boolean, phase: () => Phase): Promise<{ latencies: Record<'calm' | 'chaos', number[]>; statuses: Map<number, number> }> {
  const latencies = { calm: [] as number[], chaos: [] as number[] };
  const statuses = new Map<number, number>();
  const client = async () => {
    let next = performance.now();
    for (let i = 0; going(); i++) {
      const r = await timedGet(`/svc/pipeline/${IDS[i % IDS.length]}`);
      const p = phase();
      if (p) latencies[p].push(r.ms);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      next += 5;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  };
  await Promise.all([client(), client()]);
  return { latencies, statuses };
}

const p99 = (v: number[]) => [...v].sort((a, b) => a - b)[Math.ceil(v.length * 0.99) - 1];
const state = async (id: string) => JSON.parse((await timedGet(`/svc/pipeline/${id}`)).body).state as string;

describe('engine host chaos', () => {
  it('random SIGKILLs of engine hosts: each pipeline plays again within 5 s, p99 within 2× of calm', async () => {
    for (const id of IDS) {
      const body = { id, mode: 'simple', source: { uri: 'test://ball' }, encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 },
        output: { uri: `${svc.dataDir}/${id}.ts` } };
      expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    }
    // Calm and chaos alternate (a calm window, then a chaos window, WINDOWS times), so that both see the same
    // background: measured one after the other, other suites' load in one of them alone moved the ratio to 1.99×.
    const recoveries: Array<{ id: string; ms: number }> = [];
    let phase: Phase = null;
    let running = true;
    const loadDone = load(() => running, () => phase);
    for (let w = 0; w < WINDOWS; w++) {
      phase = 'calm';
      await new Promise((r) => setTimeout(r, CALM_MS / WINDOWS));
      phase = 'chaos';
      const windowEnd = performance.now() + CHAOS_MS / WINDOWS;
      const watchers: Promise<void>[] = [];
      const recovering = new Set<string>();
      // Kills 0.5–2 s apart from the window's start on, as in one long chaos run (not one at each window's start).
      const pause = () => new Promise((r) => setTimeout(r, Math.min(500 + Math.random() * 1500, Math.max(0, windowEnd - performance.now()))));
      await pause();
      while (performance.now() < windowEnd) {
        const idle = IDS.filter((id) => !recovering.has(id));
        const id = idle[Math.floor(Math.random() * idle.length)];
        const victim = id ? (await hostPidsByPipeline(svc.child.pid!)).get(id) : undefined;
        if (id && victim) {
          recovering.add(id);
          const killedAt = performance.now();
          process.kill(victim, 'SIGKILL');
          watchers.push(waitFor(async () => {
            const now = await hostPidsByPipeline(svc.child.pid!);
            return now.has(id) && now.get(id) !== victim && (await state(id)) === 'playing';
          }, 15_000, 50).then(() => {
            recoveries.push({ id, ms: performance.now() - killedAt });
            recovering.delete(id);
          }));
        }
        // The next kill comes 0.5–2 s later, whoever is still recovering.
        await pause();
      }
      // Every host killed in this window is back before the next calm window.
      phase = null;
      await Promise.all(watchers);
    }
    running = false;
    const { latencies: { calm, chaos }, statuses } = await loadDone;
    const calmP99 = p99(calm);
    const chaosP99 = p99(chaos);
    const slowest = Math.max(...recoveries.map((r) => r.ms));
    console.log(`host chaos: ${recoveries.length} kills, recovery max ${slowest.toFixed(0)} ms `
      + `(${recoveries.map((r) => r.ms.toFixed(0)).join(' ')}); p99 calm ${calmP99.toFixed(1)} ms over ${calm.length} GETs, `
      + `chaos ${chaosP99.toFixed(1)} ms over ${chaos.length} (${(chaosP99 / calmP99).toFixed(2)}×)`);
    expect(recoveries.length).toBeGreaterThanOrEqual(15);
    expect(recoveries.filter((r) => r.ms > RECOVERY_LIMIT_MS)).toEqual([]);
    expect([...statuses.keys()]).toEqual([200]);
    expect(chaosP99).toBeLessThanOrEqual(2 * calmP99);
    for (const id of IDS) expect(await state(id)).toBe('playing');
  }, CALM_MS + CHAOS_MS + WINDOWS * 5000 + 40_000);
});
