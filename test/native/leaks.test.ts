// Regression tests for the engine host's leaks (issue 16), judged by GStreamer's own leaks tracer: a child process
// drives the real addon (test/fixtures/leak-cycles.js) with GST_TRACERS=leaks, and the tracer's checkpoint after
// the measured part lists every object created and every object freed since the checkpoint before it.
//
// The leak these guard against: the addon's bus sync handler answered GST_BUS_DROP without unreffing the message,
// so every message leaked, and each message's source held its element, and so the whole pipeline, alive. Every
// stop/play and every rebuild left the old GstPipeline with its bus (2 fds) behind.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'encoderd-leaks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run { before: number; after: number; created: Map<string, number>; freed: Map<string, number> }

function runScenario(scenario: string, types: string[], cycles: number): Promise<Run> {
  const env = {
    ...process.env,
    GST_TRACERS: `leaks(filters="${types.join(",")}")`,
    GST_LEAKS_TRACER_SIG: '1',
    GST_DEBUG: 'GST_TRACER:7',
    GST_DEBUG_NO_COLOR: '1',
  };
  const args = [join(ROOT, 'test/fixtures/leak-cycles.js'), join(ROOT, 'native'), scenario, String(cycles), join(dir, `${scenario}.ts`)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env, maxBuffer: 64 << 20, timeout: 50_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr.slice(-2000)}`));
      const measured = stderr.split('=== measured ===\n')[1] ?? '';
      const count = (kind: string) => {
        const m = new Map<string, number>();
        for (const [, type] of measured.matchAll(new RegExp(`${kind}, type-name=\\(string\\)(\\w+)`, 'g'))) m.set(type, (m.get(type) ?? 0) + 1);
        return m;
      };
      resolve({ ...JSON.parse(stdout.trim().split('\n').pop() as string), created: count('object-added'), freed: count('object-removed') });
    });
  });
}

describe('engine host leaks (GStreamer leaks tracer)', () => {
  it('play → destroy cycles (every stop/play and rebuild) free every pipeline and bus, and their fds', async () => {
    const cycles = 8;
    const r = await runScenario('play-destroy', ['GstPipeline', 'GstBus', 'GstX264Enc', 'GstFileSink'], cycles);
    // The tracer saw the cycles: one pipeline, encoder and sink each, two buses (the pipeline's and its children's).
    expect(r.created.get('GstPipeline')).toBe(cycles);
    expect(r.created.get('GstX264Enc')).toBe(cycles);
    expect(r.created.get('GstBus')).toBe(cycles * 2);
    // And every one of them was freed again.
    for (const type of ['GstPipeline', 'GstBus', 'GstX264Enc', 'GstFileSink']) expect(r.freed.get(type) ?? 0, type).toBe(r.created.get(type));
    expect(r.after).toBe(r.before);
  });

  it('bus messages are freed as they are delivered, through live bitrate changes', async () => {
    const r = await runScenario('messages', ['GstMessage'], 20);
    const created = r.created.get('GstMessage') ?? 0;
    // `level` posts a message every 10 ms: a couple of seconds give well over a hundred.
    expect(created).toBeGreaterThan(100);
    // A few may be in flight at the checkpoint; none are kept.
    expect(created - (r.freed.get('GstMessage') ?? 0)).toBeLessThanOrEqual(3);
    expect(r.after).toBe(r.before);
  });
});
