import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // One database server for the whole run (see global-setup.ts); each test file gets its own database.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files wait on their database and on timers more than they compute: two at a time at
    // least, where the default (one less than the cores) would run them one by one on two cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
