import { defineConfig } from 'vitest/config';

/** `npm run test:image`: the container image built and run with podman (test/image/). */
export default defineConfig({
  test: {
    include: ['test/image/**/*.image.ts'],
    testTimeout: 600_000,
    hookTimeout: 3 * 3600_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
