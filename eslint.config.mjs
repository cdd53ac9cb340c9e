import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Functions over max-lines-per-function's 120 lines from before the limit, with what makes each long
 * (lines as the rule counts them). A file leaves this list when its function is split; none joins it.
 */
const LONG_FUNCTIONS = [
  // updateMessageHandler, 206: Zulip's check_update_message and do_update_message in one (edit and move
  // decided, one transaction, then the events and move notices); not yet split
  "services/messaging/src/handlers/update-message.ts",
  // realmState, 126: one object literal of register's ~105 realm_* and server_* keys, one line each
  "services/realm-config/src/realms/realm.state.ts",
  // writeTarball, 145: Zulip's export format written in order (recipients and subscriptions, message
  // files, attachments, uploads, realm.json); not yet split
  "services/messaging/src/realm-exports/realm-exporter.ts",
  // importRealm, 364: Zulip's import in order (users, profile fields, groups, channels, messages,
  // uploads), each step feeding the next its id maps; not yet split
  "scripts/lib/realm-import.ts",
  // run, 220: the chaos run's load, faults, then the report and its invariants; not yet split
  "chaos/run.ts",
  // runScenarios, 141: the scenarios in the order they run, each a load() call with its options written
  // out; not yet a table
  "bench/scenarios.ts",
  // bulkSeed, 136: the schema drift checks, then the batched writes (messages, runs, search index, read
  // marks, topics); not yet split
  "bench/seed.ts",
  // renderRun, 135: one run's markdown sections (bounds, per size, growth, memory, mixed) one after
  // another; the later sections are split out already, these not yet
  "bench/report.ts",
  // openCollaborators, 128: messaging's composition root, each collaborator made once from the ones
  // before it, a line or a call each
  "services/messaging/src/collaborators.ts",
];

export default tseslint.config(
  { ignores: ["node_modules/", "coverage/", "dist/", ".data/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "no-console": "error",
    },
  },
  {
    ignores: ["**/test/**", "**/*.test.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: LONG_FUNCTIONS, rules: { "max-lines-per-function": "off" } },
  {
    files: ["**/*.js", "**/*.cjs", "**/*.mjs"],
    languageOptions: {
      globals: { module: "readonly", require: "readonly", __dirname: "readonly", process: "readonly" },
    },
  },
);
