/**
 * The soak script (bench/soak.mjs, issue 16) runs for 2 minutes and reports its figures. A smoke test of the
 * script only: no figure is asserted, since growth over 2 minutes on a shared machine says nothing.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, run } from '../helpers/service';

describe('bench/soak.mjs', () => {
  it('runs 2 minutes of churn and reports growth per process and the functional figures', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'soak-smoke-')), 'soak.json');
    const r = await run(process.execPath, [join(ROOT, 'bench/soak.mjs'), '--minutes', '2', '--sample-seconds', '2', '--out', out],
      { timeoutMs: 145_000 });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
    const result = JSON.parse(line!);
    expect(JSON.parse(readFileSync(out, 'utf8')).figure).toBe(result.figure);
    expect(result.error).toBeUndefined();
    for (const key of ['http_5xx', 'longest_udp_silence_ms', 'pipelines_playing_at_end']) expect(typeof result[key], key).toBe('number');
    expect(result.processes.map((p: { process: string }) => p.process)).toEqual(expect.arrayContaining(['api', 'host:rtsp', 'host:udp', 'host:rec', 'host:ondemand']));
    for (const p of result.processes) {
      for (const key of ['rss_mb_per_hour', 'fds_per_hour', 'threads_per_hour']) expect(p, p.process).toHaveProperty(key);
    }
    expect(r.stderr).toMatch(/MB\/h/);
  }, 150_000);
});
