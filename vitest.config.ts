import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 20_000,
    // e2e tests spawn real hosts; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
  },
});
