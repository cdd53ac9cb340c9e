/**
 * Two projects in one run: `npm test` runs both, each test once.
 * - unit: `*.unit.test.ts`, pure (no nats-server, no database, no system), so no
 *   global setup: `npm run test:unit`, or `npx jest <file>.unit.test.ts`.
 * - integration: every other test file; its global setup (test/support/global-setup.ts)
 *   starts the infrastructure and the system, also for one file alone (`npx jest <file>.test.ts`).
 */
const shared = {
  rootDir: __dirname,
  testEnvironment: "node",
  transform: {
    // Transpile only: `npm test` type-checks the whole tree with tsc first.
    "^.+\\.ts$": ["ts-jest", { diagnostics: false }],
  },
  testPathIgnorePatterns: ["/node_modules/"],
  slowTestThreshold: 20,
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...shared, displayName: "unit", testMatch: ["<rootDir>/**/test/**/*.unit.test.ts"] },
    {
      ...shared,
      displayName: "integration",
      testMatch: ["<rootDir>/**/test/**/*.test.ts"],
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, "\\.unit\\.test\\.ts$"],
      globalSetup: "<rootDir>/test/support/global-setup.ts",
      globalTeardown: "<rootDir>/test/support/global-teardown.ts",
    },
  ],
  // 2 cores, but test files spend much of their time waiting on NATS, the database and timers: a third
  // worker fills that time, a fourth only adds contention (docs/adr/0027-test-run-parallelism.md).
  // Test files share one system (global-setup.ts), each in its own organizations.
  maxWorkers: 3,
  testTimeout: 60_000,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
