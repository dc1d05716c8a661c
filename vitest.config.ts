import { defineConfig } from 'vitest/config';

const ALL = ['test/**/*.test.ts', 'core/**/*.test.ts', 'plugins/**/*.test.ts', 'examples/**/*.test.ts'];

/**
 * Service tests run a second time with the native engine host (docs/engine-host.md), a representative set of every
 * host command: play/stop/set, samples (framegrabs, KLV relay), stats, probe (passthrough), companions (looped
 * files), RTSP feed and on-demand mounts, transports (SRT), KLV pacing, multiview, audio. Left out until the fault
 * injection moves out of the Node host: the tests that need it (lifecycle/crash, lifecycle/patch).
 */
const NATIVE_HOST = [
  'test/api/pipeline-udp.test.ts', 'test/api/pipeline-file.test.ts', 'test/api/errors.test.ts',
  'test/framegrabs/framegrabs.test.ts', 'test/stats/stats.test.ts',
  'test/klv/e2e.test.ts', 'test/klv/rtsp.test.ts', 'test/klv/passthrough.test.ts',
  'test/media/rtsp.test.ts', 'test/media/passthrough.test.ts', 'test/media/sources.test.ts', 'test/media/srt.test.ts',
  'test/media/outputs.test.ts', 'test/lifecycle/events.test.ts', 'test/lifecycle/lost-source.test.ts',
  'test/multiview/e2e.test.ts', 'test/audio/e2e.test.ts',
];

// Real pipelines are slow to start and the machine has two cores: files run in parallel in forked
// workers, two at a time, each test with a generous timeout.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'default', include: ALL } },
      { extends: true, test: { name: 'native-host', include: NATIVE_HOST, env: { ENCODERD_ENGINE_HOST: 'native' } } },
    ],
  },
});
