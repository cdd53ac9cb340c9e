/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  transform: {
    // Transpile only: `npm test` type-checks the whole tree with tsc first.
    "^.+\\.ts$": ["ts-jest", { diagnostics: false }],
  },
  testMatch: ["<rootDir>/**/test/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  globalSetup: "<rootDir>/test/support/global-setup.ts",
  globalTeardown: "<rootDir>/test/support/global-teardown.ts",
  // 2 cores, but test files spend much of their time waiting on NATS, the database and timers: a third
  // worker fills that time, a fourth only adds contention (docs/adr/0027-test-run-parallelism.md).
  // Test files share one system (global-setup.ts), each in its own organizations.
  maxWorkers: 3,
  testTimeout: 60_000,
  slowTestThreshold: 20,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
