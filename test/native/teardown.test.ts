// The environment cleanup hook (native/src/addon.c): a worker_thread that loaded the addon and is terminated with a
// playing pipeline, an RTSP server and a started device monitor still open leaves nothing behind: its RTSP port is
// free again, the main-loop thread is joined when no environment holds it, and the process goes on healthy (a new
// server on the same port in the main thread; a main thread that shares the loop keeps being served). Run in a
// child process (test/fixtures/worker-teardown.js), so a failure cannot take the test runner with it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const fixture = join(__dirname, '../fixtures/worker-teardown.js');
const nativeDir = join(__dirname, '../../native');

function run(mode: 'worker-only' | 'shared'): Record<string, unknown> {
  const r = spawnSync(process.execPath, [fixture, nativeDir, mode], { encoding: 'utf8', timeout: 30_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout.trim()) as Record<string, unknown>;
}

describe('a worker_thread that used the addon is terminated', () => {
  it('alone: its port is free, the main loop thread ends, and the addon starts again in the main thread', () => {
    expect(run('worker-only')).toEqual({
      before: 0,
      workerOptions: 'RTSP/1.0 200 OK',
      during: 1,
      exitCode: 1,
      after: 0,
      portFree: true,
      againOptions: 'RTSP/1.0 200 OK',
      againThreads: 1,
    });
  });

  it('beside a main thread that uses the addon too: the shared loop goes on serving the main thread', () => {
    expect(run('shared')).toEqual({
      before: 0,
      workerOptions: 'RTSP/1.0 200 OK',
      during: 1,
      exitCode: 1,
      after: 1,
      portFree: true,
      mainOptions: 'RTSP/1.0 200 OK',
      mainMessagesFlow: true,
    });
  });
});
