/**
 * Zulip's Python bindings (PyPI `zulip`) for interop tests: installed into the
 * tool cache on first use; python_bindings.py makes a plan's calls through
 * them while `call_on_each_event` listens, and prints the replies and events.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ensurePythonVenv, TOOL_CACHE, type PythonVenvSpec } from "../../scripts/lib/infra";
import type { TestUser } from "./organization";

const ZULIP_BINDINGS: PythonVenvSpec = {
  what: "Zulip's Python bindings (for the interop tests)",
  dir: join(TOOL_CACHE, "python-zulip-venv"),
  packages: ["zulip==0.9.1"],
  // zulip 0.9.1 requires Python 3.9 or later; it is pure Python.
  pythonMinors: [9, 14],
};
const SCRIPT = join(__dirname, "..", "interop", "python_bindings.py");

export type Json = Record<string, unknown>;
export interface BindingsPlan {
  /** [method of zulip.Client, ...its arguments]; a last argument `{kwargs: {...}}` passes keyword arguments */
  calls: Array<[string, ...unknown[]]>;
  event_types?: string[];
  expected_events?: number;
}
export interface BindingsRun {
  replies: Json[];
  /** without their queue-specific ids */
  events: Json[];
}

let python: string | undefined;

/** Installs the bindings on first use (slow the first time: call it in beforeAll with a long timeout). */
export function installBindings(): string {
  python ??= join(ensurePythonVenv(ZULIP_BINDINGS, {}), "bin", "python");
  return python;
}

/**
 * Runs the plan through the bindings as `user` against the gateway at
 * `baseUrl`; asynchronous, as the test's own process serves the requests.
 */
export function runBindings(baseUrl: string, user: TestUser, plan: BindingsPlan): Promise<BindingsRun> {
  const child = spawn(installBindings(), [SCRIPT], {
    env: { ...process.env, ZULIP_SITE: baseUrl, ZULIP_EMAIL: user.email, ZULIP_API_KEY: user.apiKey },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(plan));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`python_bindings.py exited with ${code}:\n${stderr}`));
      const run = JSON.parse(stdout) as BindingsRun;
      resolve({ replies: run.replies, events: run.events.map(({ id: _id, ...event }) => event) });
    });
  });
}
