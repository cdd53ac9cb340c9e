/**
 * package.json's `engines` tells the truth about what `npm ci` installs: every Node version it
 * accepts is one that every locked package accepts (npm warns EBADENGINE otherwise).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { subset } from "semver";

const read = <T>(file: string): T => JSON.parse(readFileSync(join(__dirname, "../..", file), "utf8")) as T;

it("accepts no Node version that a locked package refuses", () => {
  const { engines } = read<{ engines: { node: string } }>("package.json");
  const { packages } = read<{ packages: Record<string, { version?: string; engines?: { node?: unknown } }> }>(
    "package-lock.json",
  );
  const refusing = Object.entries(packages)
    .filter(([, pkg]) => typeof pkg.engines?.node === "string" && !subset(engines.node, pkg.engines.node))
    .map(([path, pkg]) => `${path}@${pkg.version} wants Node ${String(pkg.engines?.node)}`);
  expect(refusing).toEqual([]);
});
