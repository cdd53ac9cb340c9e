/** The service bundles build, and the build leaves no process behind (esbuild's API keeps one until stopped). */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBundles } from "../../scripts/lib/build";

/** This process's live children's names: an exited child is a zombie (state Z) until Node reaps it. */
const liveChildren = (): string[] =>
  execFileSync("ps", ["-o", "stat=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([stat, name]) => stat && !stat.startsWith("Z") && name !== "ps")
    .map(([, name]) => name!);

it("builds a service's bundle and stops esbuild's child process", async () => {
  const outdir = mkdtempSync(join(tmpdir(), "teamchat-build-"));
  try {
    await buildBundles(["realm-config"], {}, outdir);
    expect(existsSync(join(outdir, "realm-config.js"))).toBe(true);
    expect(liveChildren()).not.toContain("esbuild");
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});
