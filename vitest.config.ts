import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The catalogue compiled from its entries (the build writes the same table to dist/catalog/).
    setupFiles: ['tests/support/catalog-setup.ts'],
    testTimeout: 20_000,
    // e2e tests spawn real hosts; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
  },
});
