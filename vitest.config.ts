import { defineConfig } from 'vitest/config';

// Real pipelines are slow to start and the machine has two cores: files run in parallel in forked
// workers, two at a time, each test with a generous timeout.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'core/**/*.test.ts', 'plugins/**/*.test.ts', 'examples/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
