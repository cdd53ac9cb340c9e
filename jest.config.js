/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" } }],
  },
  testMatch: ["<rootDir>/**/test/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  globalSetup: "<rootDir>/test/support/global-setup.ts",
  globalTeardown: "<rootDir>/test/support/global-teardown.ts",
  // 2 cores: one worker per core; each test file runs its own system.
  maxWorkers: 2,
  testTimeout: 60_000,
  slowTestThreshold: 20,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
