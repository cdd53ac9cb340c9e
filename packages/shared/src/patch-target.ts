/**
 * The guard of our run-time patches of libraries' internals. A patch states the exact library
 * version it was written for and a fingerprint of the source of each function it replaces, wraps
 * or calls; before patching, it checks the installed library against that and refuses to start
 * on any difference, since an upgrade could otherwise change what it patches without a word.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface PatchTarget {
  /** The patch (its source file) and its decision record, both named when it refuses to start. */
  patch: string;
  decision: string;
  /** The npm package whose internals the patch changes, and the exact version package.json pins. */
  library: string;
  version: string;
  /** The SHA-256 of the source of each function the patch relies on, by its path in the library's module, in that version. */
  sources: Record<string, string>;
}

/** What is installed: the library's version, and its module, in which the names of `PatchTarget.sources` are paths. */
export interface InstalledTarget {
  version: string;
  exports: object;
}

/** What a dotted path names in a module ("ProtocolHandler.prototype.close"), undefined when nothing. */
export function targetAt(exports: object, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((found, key) => (found as Record<string, unknown> | undefined)?.[key], exports);
}

/** The SHA-256 of a function's source text (Function.prototype.toString), undefined for anything else. */
export function sourceFingerprint(fn: unknown): string | undefined {
  if (typeof fn !== "function") return undefined;
  return createHash("sha256").update(Function.prototype.toString.call(fn)).digest("hex");
}

/** The version of the installed npm package `name`, read from its package.json (which its `exports` may hide). */
export function installedVersion(name: string): string {
  const entry = require.resolve(name);
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
    if (pkg.name === name && pkg.version) return pkg.version;
  }
  throw new Error(`no package.json of ${name} above ${entry}`);
}

/** How the installed library differs from the patch's target, one line each; none when it is the target. */
export function targetChanges(target: PatchTarget, installed: InstalledTarget): string[] {
  const changes: string[] = [];
  if (installed.version !== target.version) {
    changes.push(`${target.library} ${installed.version} is installed, not ${target.version}`);
  }
  for (const [name, expected] of Object.entries(target.sources)) {
    const found = sourceFingerprint(targetAt(installed.exports, name));
    if (found === undefined) changes.push(`${name} is not a function any more`);
    else if (found !== expected) changes.push(`${name} has changed: its source's SHA-256 is ${found}, not ${expected}`);
  }
  return changes;
}

/** Throws, saying what changed and what to do, unless the installed library is the one the patch was written for. */
export function checkPatchTarget(target: PatchTarget, installed: InstalledTarget): void {
  const changes = targetChanges(target, installed);
  if (changes.length === 0) return;
  throw new Error(
    `${target.patch} patches internals of ${target.library} ${target.version}, and the installed one differs:\n` +
      changes.map((change) => `  - ${change}\n`).join("") +
      `Read the new version's code of these functions and re-measure the patch as ${target.decision} describes; ` +
      "then update the patch, its pinned version (package.json) and its fingerprints, or remove the patch.",
  );
}
