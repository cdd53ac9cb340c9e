/**
 * Bundles each service into one plain JavaScript file (`dist/<service>.js`) so that a service
 * process runs on bare Node: running the TypeScript through tsx costs every process memory
 * (its loader thread and transform cache; docs/adr/0023-process-memory-settings.md) and slower starts. Our own code (the service and
 * `@teamchat/shared`) is bundled; npm dependencies stay external and load from node_modules.
 * Takes well under a second, so every `npm start` and bench run builds afresh.
 */
import { build, stop } from "esbuild";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./infra";

export const DIST_DIR = join(REPO_ROOT, "dist");

export function bundlePath(name: string): string {
  return join(DIST_DIR, `${name}.js`);
}

/**
 * The named services' bundles, plus `extra` entry points (name → source path from the repository root).
 * esbuild's JavaScript API builds in a child process that it keeps for later builds; it is stopped when
 * the build ends, so that `npm start` does not carry an idle esbuild process for the system's lifetime.
 */
export async function buildBundles(
  names: readonly string[],
  extra: Record<string, string> = {},
  outdir = DIST_DIR,
): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  try {
    await build({
      entryPoints: {
        ...Object.fromEntries(names.map((name) => [name, join(REPO_ROOT, "services", name, "src/main.ts")])),
        ...Object.fromEntries(Object.entries(extra).map(([name, path]) => [name, join(REPO_ROOT, path)])),
      },
      outdir,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      sourcemap: "linked",
      external: Object.keys(pkg.dependencies),
      logLevel: "warning",
    });
  } finally {
    await stop();
  }
}
