import { defineConfig } from 'vitest/config';

const ALL = ['test/**/*.test.ts', 'core/**/*.test.ts', 'plugins/**/*.test.ts', 'examples/**/*.test.ts'];

/**
 * Service tests run a second time with the Node engine host (docs/engine-host.md; the native one is the default), a
 * few that between them send every host command: play/stop/set and live changes (api/pipeline-udp), samples
 * (framegrabs), stats, RTSP feed and on-demand mounts (media/rtsp), probe (media/passthrough), companions
 * (media/sources: looped files), KLV pacing and relay (klv/e2e), and the supervisor's injected host faults
 * (lifecycle/crash, lifecycle/patch: test/fixtures/host-faults.js in a Node host), the spare host named for its
 * pipeline (lifecycle/spare-host). Fewer than all: a second run of
 * every media file put the two-core machine past what its timing-sensitive tests bear. The whole suite runs with the
 * Node host by hand: `ENCODERD_ENGINE_HOST=node npx vitest run <dir>`, a directory at a time.
 */
const NODE_HOST = [
  'test/api/pipeline-udp.test.ts', 'test/framegrabs/framegrabs.test.ts', 'test/stats/stats.test.ts',
  'test/media/rtsp.test.ts', 'test/media/passthrough.test.ts', 'test/media/sources.test.ts', 'test/klv/e2e.test.ts',
  'test/lifecycle/crash.test.ts', 'test/lifecycle/patch.test.ts', 'test/lifecycle/spare-host.test.ts',
];

// Real pipelines are slow to start and the machine has two cores: files run in parallel in forked
// workers, two at a time, each test with a generous timeout.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition (a page's text, a state over the API); its default of 1 s ran out in a full
    // suite beside other load while argon2 checked a login password. Conditions, not sleeps: a longer wait costs
    // nothing when the condition holds.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'default', include: ALL } },
      { extends: true, test: { name: 'node-host', include: NODE_HOST, env: { ENCODERD_ENGINE_HOST: 'node' } } },
    ],
  },
});
