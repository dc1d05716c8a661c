// The API process's glibc arenas are fixed at its start (core/process-arenas.ts): bin/encoderd sets
// MALLOC_ARENA_MAX=1 and starts the same process again, so no thread of the API gets an arena of its own, while the
// engine hosts keep theirs (MALLOC_ARENA_MAX=2, core/engine/host-process.ts). Judged from /proc: the environment
// the process was exec'd with, and its mappings (glibc's thread arenas are 64 MiB-aligned reservations).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { classify, parseSmaps } from '../../bench/lib/smaps.mjs';
import { hostPidsByPipeline, ROOT, sparePid, startService, waitFor, type RunningService } from '../helpers/service';

const execEnv = (pid: number): Record<string, string> => Object.fromEntries(readFileSync(`/proc/${pid}/environ`, 'utf8')
  .split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const arenaMaps = (pid: number): number => classify(parseSmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8'))).filter((k: string) => k === 'arenas').length;

let svc: RunningService | undefined;
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

describe('the API process\'s malloc arenas', () => {
  it('starts again with MALLOC_ARENA_MAX=1 under the same pid, makes no thread arena, and its engine hosts keep 2', async () => {
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    svc = await startService({ env });
    const pid = svc.child.pid!;
    // The pid bin/encoderd was spawned as now runs the image exec'd with the variable set.
    expect(execEnv(pid).MALLOC_ARENA_MAX).toBe('1');
    // stdout and stderr went across the exec (Node marks them close-on-exec; the new image found /dev/null there).
    expect(svc.logs()).toContain('"msg":"encoderd ready"');
    const r = await svc.api('POST', '/svc/pipeline', { id: 'ar', mode: 'simple', source: { uri: 'test://ball' },
      encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 }, output: { uri: join(svc.dataDir, 'ar.ts') } });
    expect(r.status).toBe(201);
    // Requests, TLS and a pipeline's host running: threads enough that each would have made an arena of its own.
    for (let i = 0; i < 20; i++) expect((await svc.api('GET', '/svc/pipeline/ar')).status).toBe(200);
    expect(arenaMaps(pid)).toBe(0);
    const host = await waitFor(async () => (await hostPidsByPipeline(pid)).get('ar'));
    expect(execEnv(host).MALLOC_ARENA_MAX).toBe('2');
    expect(execEnv(host).ENCODERD_ARENAS_AT_EXEC).toBeUndefined();
  });

  it('leaves an operator\'s MALLOC_ARENA_MAX alone, for the API and its engine hosts alike', async () => {
    svc = await startService({ env: { MALLOC_ARENA_MAX: '3' } });
    expect(execEnv(svc.child.pid!).MALLOC_ARENA_MAX).toBe('3');
    expect(execEnv(svc.child.pid!).ENCODERD_ARENAS_AT_EXEC).toBeUndefined();
    // The spare engine host, started with the service (core/engine/spare-host.ts).
    const spare = await waitFor(() => sparePid(svc!.child.pid!), 20000);
    expect(execEnv(spare).MALLOC_ARENA_MAX).toBe('3');
  });

  it('execSelf throws NG_ERR_EXEC with the errno when the exec cannot happen, and the process goes on', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const native = require(join(ROOT, 'native')) as typeof import('../../native');
    let thrown: (Error & { code?: string }) | undefined;
    try {
      native.execSelf('/nonexistent/encoderd-node', ['encoderd-node']);
    } catch (err) {
      thrown = err as Error & { code?: string };
    }
    expect(thrown?.code).toBe('NG_ERR_EXEC');
    expect(thrown?.message).toMatch(/No such file or directory/);
    expect(() => native.execSelf('/bin/true', ['true', 42 as unknown as string])).toThrow(/must be a string/);
  });
});
