/**
 * `npm run fuzz`: property-based fuzzing of every operation this server
 * implements, with each operation's schema from zulip.yaml, or for the operations
 * it leaves out from packages/shared/src/testing/zulip-undocumented/ (schemathesis, from
 * PyPI into a venv in the tool cache). It starts the whole system in this
 * process as the tests do (in-memory SecantusDB, a private nats-server), seeds
 * an organization (fuzz-seed.ts), and runs schemathesis as an administrator
 * through a proxy that checks every exchange (fuzz-proxy.ts): no 5xx, every 200
 * valid against zulip.yaml, every 4xx in Zulip's error shape. Rounds with new
 * seeds run until FUZZ_REQUESTS requests were made. Exits 1 on any finding.
 *
 * `--short` (the run in `npm test`): FUZZ_REQUESTS defaults to 500, 5 examples per operation, no coverage phase.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allContracts, identity } from "@teamchat/shared";
import { documentedOperations, zulipDocument } from "@teamchat/shared/src/testing/openapi";
import { startSystem, type TestSystem } from "../test/support/system";
import {
  ensureNatsServer,
  ensurePythonVenv,
  ProvisionError,
  REPO_ROOT,
  startMongo,
  startPostgres,
  TOOL_CACHE,
} from "./lib/infra";
import { startFuzzProxy, type FuzzStats } from "./lib/fuzz-proxy";
import { seedOrganization } from "./lib/fuzz-seed";

const SCHEMATHESIS = {
  what: "schemathesis (the fuzzer of npm run fuzz)",
  dir: join(TOOL_CACHE, "schemathesis-venv"),
  packages: ["schemathesis==4.32.5"],
  // schemathesis 4 requires Python 3.11 or later.
  pythonMinors: [11, 14] as [number, number],
  pyenvVersion: "3.12",
};

/**
 * Operations left out although implemented, because they end the run: the
 * fuzzing user deactivating itself or revoking its own API key. (Deactivating
 * or demoting itself through /users/{user_id} is repaired after the reply
 * instead, so those operations stay fuzzed.)
 */
const SELF_HARM = ["DELETE /users/me", "POST /users/me/api_key/regenerate"];

const short = process.argv.includes("--short");
const targetRequests = Number(process.env.FUZZ_REQUESTS ?? (short ? 500 : 10_000));
const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? (short ? 5 : 100));
/**
 * The coverage phase (each parameter's boundaries and wrong types, ~3,500 requests whatever
 * FUZZ_MAX_EXAMPLES says) takes half a minute: the full run only, so that `npm test` stays short.
 */
const phases = short ? "examples,fuzzing" : "examples,coverage,fuzzing";
const firstSeed = Number(process.env.FUZZ_SEED ?? 1);
const log = (line: string) => process.stdout.write(`[fuzz] ${line}\n`);

const templateKey = (op: string) => op.replace(/\{[^}]+\}/g, "{}");

/**
 * The document's operations (schemathesis' names: zulip.yaml's and those it leaves out,
 * zulipDocument) that some contract implements over HTTP, less SELF_HARM.
 */
function fuzzedOperations(): string[] {
  const implemented = new Set(
    allContracts.filter((c) => c.http).map((c) => templateKey(`${c.http!.method} ${c.http!.path}`)),
  );
  return documentedOperations().filter((op) => implemented.has(templateKey(op)) && !SELF_HARM.includes(op));
}

/**
 * Puts the fuzzing administrator back after a request deactivated or demoted it
 * (DELETE or PATCH /users/{user_id} on its own id or email): the only owner can.
 */
function fuzzerRepair(org: TestSystem, fuzzer: { userId: number; email: string }) {
  const own = new RegExp(
    `^/api/v1/users/(${fuzzer.userId}|${encodeURIComponent(fuzzer.email)}|${fuzzer.email})(\\?|$)`,
  );
  return async (method: string, url: string, status: number) => {
    if (status !== 200 || !["DELETE", "PATCH"].includes(method) || !own.test(url)) return;
    const { user } = await org.call(identity.getUser, { user_id: fuzzer.userId }, org.owner);
    if (!user.is_active) await org.call(identity.reactivateUser, { user_id: fuzzer.userId }, org.owner);
    if (user.role !== 200) await org.call(identity.updateUser, { user_id: fuzzer.userId, role: 200 }, org.owner);
  };
}

function printSummary(stats: FuzzStats, operations: string[]): number {
  log("requests per operation (status: count):");
  for (const op of [...stats.byOperation.keys()].sort()) {
    const statuses = [...stats.byOperation.get(op)!.entries()].sort(([a], [b]) => a - b);
    const total = statuses.reduce((n, [, c]) => n + c, 0);
    log(`  ${op.padEnd(56)} ${String(total).padStart(6)}  ${statuses.map(([s, c]) => `${s}:${c}`).join(" ")}`);
  }
  // /users/{user_id} and /users/{email} are one path to the gateway and to the count
  const reached = new Set([...stats.byOperation.keys()].map(templateKey));
  const unreached = operations.filter((op) => !reached.has(templateKey(op)));
  if (unreached.length) log(`operations that got no request: ${unreached.join(", ")}`);
  const failed = [...stats.failures.values()].reduce((n, c) => n + c, 0);
  log(`${stats.total} requests to ${stats.byOperation.size} operations; ${failed} failed`);
  if (!failed) return 0;
  log("FINDINGS (operation: kind × count):");
  for (const [key, count] of [...stats.failures.entries()].sort()) log(`  ${key} × ${count}`);
  for (const f of stats.examples) {
    log(`--- ${f.operation}: ${f.kind} (HTTP ${f.status})`);
    log(`    request: ${f.request}`);
    log(`    reply:   ${f.reply}`);
    for (const p of f.problems) log(`    problem: ${p}`);
  }
  return failed;
}

async function main() {
  const started = Date.now();
  log(
    `${short ? "short" : "full"} run: at least ${targetRequests} requests (FUZZ_REQUESTS), ${maxExamples} examples per operation and round (FUZZ_MAX_EXAMPLES)`,
  );
  const venv = ensurePythonVenv(SCHEMATHESIS, { progress: log });
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-fuzz-"));
  let stopAll = async () => rmSync(dataDir, { recursive: true, force: true });
  // Ctrl-C or a kill stops what this started (the database, nats-server) before leaving.
  const interrupted = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    log("starting the database and the system...");
    ensureNatsServer({ dataDir, progress: log });
    const mongo = await startMongo({ dataDir, progress: log, inMemory: true });
    stopAll = async () => {
      await mongo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    // search's engine beside SecantusDB, as `npm start` starts it
    const postgres = await startPostgres({ dataDir, progress: log, ephemeral: true });
    stopAll = async () => {
      await Promise.all([mongo.stop(), postgres.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    };
    process.env.TEST_MONGO_URL = mongo.url;
    process.env.TEST_SEARCH_URL = postgres.url;
    const errorLogs: Array<Record<string, unknown>> = [];
    const org = await startSystem({
      // no rate limit to hit; a parked GET /events answers its heartbeat soon
      env: { RATE_LIMIT_REQUESTS: "100000000", EVENT_HEARTBEAT_SECONDS: "1", LOG_LEVEL: "error" },
      logs: errorLogs,
    });
    const stopInfra = stopAll;
    stopAll = async () => {
      await org.stop();
      await stopInfra();
    };
    log("seeding the organization...");
    const { fuzzer, ids } = await seedOrganization(org);
    const proxy = await startFuzzProxy(org.baseUrl, fuzzerRepair(org, fuzzer));
    const operations = fuzzedOperations();
    const document = join(dataDir, "zulip-api.json");
    writeFileSync(document, JSON.stringify(zulipDocument()));
    log(`fuzzing ${operations.length} operations as administrator ${fuzzer.email} (left out: ${SELF_HARM.join(", ")})`);

    const args = [
      "run",
      document,
      "--url",
      `${proxy.url}/api/v1`,
      "--auth",
      `${fuzzer.email}:${fuzzer.apiKey}`,
      // our proxy checks replies (zulip.yaml with our allowances); schemathesis only reports 5xx itself
      "--checks",
      "not_a_server_error",
      "--max-examples",
      String(maxExamples),
      "--phases",
      phases,
      "--workers",
      "2",
      "--suppress-health-check",
      "all",
      "--warnings",
      "off",
      "--no-shrink",
      ...operations.flatMap((op) => ["--include-name", op]),
    ];
    let round = 0;
    const schemathesisFailures: string[] = [];
    while (proxy.stats.total < targetRequests) {
      const seed = firstSeed + round++;
      const before = proxy.stats.total;
      log(`round ${round} (seed ${seed}): ${before} requests so far...`);
      // asynchronously: this process serves the requests
      const child = spawn(join(venv, "bin", "st"), [...args, "--seed", String(seed)], {
        // schemathesis keeps a cache in its working directory: the run's own, not the repository
        cwd: dataDir,
        stdio: ["ignore", "inherit", "inherit"],
        env: {
          ...process.env,
          SCHEMATHESIS_HOOKS: "fuzz_hooks",
          PYTHONPATH: join(REPO_ROOT, "scripts/lib"),
          FUZZ_IDS: JSON.stringify(ids),
          FUZZ_SEED: String(seed),
        },
      });
      const exit = await new Promise<number | null>((resolve) => child.once("close", resolve));
      // a 5xx is counted by the proxy as well; any other failure (a hook's error, a request that
      // could not be made) only schemathesis reports, in its summary above
      if (exit !== 0) schemathesisFailures.push(`round ${round}: exit ${exit}`);
      if (proxy.stats.total === before) {
        throw new Error(`schemathesis made no requests (exit ${exit}): see its messages above`);
      }
      // a fuzzing user that lost its access would make the rest of the run test only a 401
      const { role } = await org.call(identity.getOwnUser, {}, fuzzer);
      if (role !== 200) throw new Error(`the fuzzing user's role became ${role}: extend fuzzerRepair()`);
    }
    const failed = printSummary(proxy.stats, operations);
    if (errorLogs.length) {
      // one line per distinct error: the same bug usually fails many requests
      const byMessage = new Map<string, { count: number; line: Record<string, unknown> }>();
      for (const line of errorLogs) {
        const key = JSON.stringify((line.err as { message?: string } | undefined)?.message ?? line.msg);
        const seen = byMessage.get(key);
        byMessage.set(key, { count: (seen?.count ?? 0) + 1, line: seen?.line ?? line });
      }
      log(`${errorLogs.length} error log lines of the services, ${byMessage.size} distinct:`);
      for (const { count, line } of byMessage.values()) log(`  × ${count}: ${JSON.stringify(line).slice(0, 2000)}`);
    }
    await proxy.close();
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (failed) {
      log("fix each finding in the service that owns the operation, with a regression test through HTTP");
      process.exitCode = 1;
    }
    if (schemathesisFailures.length) {
      log(`schemathesis failed (${schemathesisFailures.join(", ")}): see its summary above`);
      process.exitCode = 1;
    }
    // the closing line in the plain form CI reads: requests that passed every check, and those that did not
    process.stdout.write(`fuzzing: ${proxy.stats.total - failed} passed, ${failed} failed\n`);
  } finally {
    await stopAll();
  }
}

main().catch((err: unknown) => {
  const hint = err instanceof ProvisionError ? "" : " (the system's error logs, if any, are above)";
  process.stderr.write(`[fuzz] failed: ${(err as Error).stack ?? String(err)}${hint}\n`);
  process.exit(1);
});
