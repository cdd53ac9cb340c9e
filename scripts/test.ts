/**
 * `npm test`: type-check, lint, format check, the deployment manifests
 * (scripts/validate-deploy.ts), every jest test (which provisions its own
 * infrastructure, see test/support/global-setup.ts), then
 * a short fuzzing run (scripts/fuzz.ts) and a short fault test (chaos/run.ts).
 * Extra arguments go to jest, e.g. `npm test -- services/identity`, and leave
 * the fuzzing and the fault test out.
 */
import { spawnSync } from "node:child_process";
import { REPO_ROOT } from "./lib/infra";

const bin = (name: string) => `${REPO_ROOT}/node_modules/.bin/${name}`;
const jestArgs = process.argv.slice(2);
type Step = [string, string, string[]];
const steps: Step[] = [
  ["type-check (tsc --noEmit, strict)", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]],
  ["lint (eslint)", bin("eslint"), ["."]],
  ["format check (prettier)", bin("prettier"), ["--check", "--log-level", "warn", "."]],
  // ~2 s (the first run builds kubeconform and fetches the Kubernetes schemas: ~40 s, once)
  ["deployment manifests (npm run validate:deploy)", bin("tsx"), ["scripts/validate-deploy.ts"]],
  ["unit and integration tests (jest)", bin("jest"), jestArgs],
  // the whole run only: `npm test -- <files>` is for a focused look
  ...(jestArgs.length
    ? []
    : [
        ["fuzzing, short run (npm run fuzz -- --short)", bin("tsx"), ["scripts/fuzz.ts", "--short"]] as Step,
        ["fault test, short run (npm run chaos -- --short)", bin("tsx"), ["chaos/run.ts", "--short"]] as Step,
      ]),
];

for (const [i, [title, cmd, args]] of steps.entries()) {
  process.stdout.write(`\n[test ${i + 1}/${steps.length}] ${title}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: "inherit" });
  if (r.status !== 0) {
    process.stdout.write(`[test] ${title} failed (exit ${r.status ?? r.signal}): fix the problems above.\n`);
    process.exit(r.status || 1);
  }
  process.stdout.write(`[test] ${title}: ok (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
}
