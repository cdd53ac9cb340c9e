/**
 * `npm test`: type-check, lint, format check, import cycles, the deployment manifests
 * (scripts/validate-deploy.ts), every jest test (which provisions its own
 * infrastructure, see test/support/global-setup.ts), then
 * a short fuzzing run (scripts/fuzz.ts) and a short fault test (chaos/run.ts).
 * Extra arguments go to jest, e.g. `npm test -- services/identity`, and leave
 * the fuzzing and the fault test out.
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./lib/infra";

const bin = (name: string) => `${REPO_ROOT}/node_modules/.bin/${name}`;
const jestArgs = process.argv.slice(2);
type Step = [string, string, string[]];
/** Independent of each other and each on one core: run side by side (docs/adr/0027-test-run-parallelism.md). */
const checks: Array<[tag: string, ...Step]> = [
  ["tsc", "type-check (tsc --noEmit, strict)", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]],
  ["eslint", "lint (eslint)", bin("eslint"), ["."]],
  ["prettier", "format check (prettier)", bin("prettier"), ["--check", "--log-level", "warn", "."]],
  // no import cycle anywhere, type-only imports included (.dependency-cruiser.cjs)
  ["cycles", "import cycles (npm run check:cycles)", bin("depcruise"), ["--config", ".dependency-cruiser.cjs", "."]],
  // the first run builds kubeconform and fetches the Kubernetes schemas into the tool cache, once
  ["deploy", "deployment manifests (npm run validate:deploy)", bin("tsx"), ["scripts/validate-deploy.ts"]],
];
const steps: Step[] = [
  ["unit and integration tests (jest)", bin("jest"), jestArgs],
  // the whole run only: `npm test -- <files>` is for a focused look
  ...(jestArgs.length
    ? []
    : [
        ["fuzzing, short run (npm run fuzz -- --short)", bin("tsx"), ["scripts/fuzz.ts", "--short"]] as Step,
        ["fault test, short run (npm run chaos -- --short)", bin("tsx"), ["chaos/run.ts", "--short"]] as Step,
      ]),
];
const total = checks.length + steps.length;
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
const fail = (title: string, status: number | null, signal: NodeJS.Signals | null): never => {
  process.stdout.write(`[test] ${title} failed (exit ${status ?? signal}): fix the problems above.\n`);
  process.exit(status || 1);
};

/** Runs a check, its output shown as it comes, each line tagged with the check's name. */
function runCheck([tag, title, cmd, args]: [string, ...Step]): Promise<() => void> {
  const started = Date.now();
  const child = spawn(cmd, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${tag}] ${line}\n`));
  }
  return new Promise((resolve) =>
    child.on("close", (status, signal) => {
      const took = seconds(started);
      resolve(() => {
        if (status !== 0) fail(title, status, signal);
        process.stdout.write(`[test] ${title}: ok (${took}s)\n`);
      });
    }),
  );
}

async function main(): Promise<void> {
  process.stdout.write(
    `\n[test 1-${checks.length}/${total}] ${checks.map(([, title]) => title).join(", ")}, side by side\n`,
  );
  // reported in order once all have ended: the first failed one fails the run
  for (const report of await Promise.all(checks.map(runCheck))) report();
  for (const [i, [title, cmd, args]] of steps.entries()) {
    process.stdout.write(`\n[test ${checks.length + i + 1}/${total}] ${title}\n`);
    const started = Date.now();
    const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: "inherit" });
    if (r.status !== 0) fail(title, r.status, r.signal);
    process.stdout.write(`[test] ${title}: ok (${seconds(started)}s)\n`);
  }
}

void main();
