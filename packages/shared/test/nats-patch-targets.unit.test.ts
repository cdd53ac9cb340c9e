/**
 * Our two run-time patches of nats.js internals start only on the nats.js they were written for:
 * each is imported into a fresh copy of nats.js, as installed or with its target changed, and
 * refuses a changed one without patching anything.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { installedVersion, sourceFingerprint, targetAt, type PatchTarget } from "../src/patch-target";
import { WRITE_BATCHING_TARGET } from "../src/nats-write-batching";
import { REQUEST_CANCEL_TARGET } from "../src/nats-requests";

type Internals = typeof import("@nats-io/nats-core/internal");

const PATCHES: Array<[module: string, target: PatchTarget]> = [
  ["../src/nats-write-batching", WRITE_BATCHING_TARGET],
  ["../src/nats-requests", REQUEST_CANCEL_TARGET],
];

/**
 * Imports the patch `module` into a fresh module registry whose own nats.js `change` has altered
 * first, and whose installed nats.js is `version` when that is given: that nats.js, and the
 * error the patch refused to start with, if it did.
 */
function importPatch(
  module: string,
  { change = () => undefined, version }: { change?: (internals: Internals) => void; version?: string } = {},
): { internals: Internals; refusal?: Error } {
  let internals!: Internals;
  let refusal: Error | undefined;
  jest.isolateModules(() => {
    if (version !== undefined) {
      jest.doMock("../src/patch-target", () => ({
        ...jest.requireActual<typeof import("../src/patch-target")>("../src/patch-target"),
        installedVersion: () => version,
      }));
    }
    try {
      // requireActual: the module itself, its imports through this registry (and the mock above)
      internals = jest.requireActual<Internals>("@nats-io/nats-core/internal");
      change(internals);
      jest.requireActual(module);
    } catch (err) {
      refusal = err as Error;
    } finally {
      // a mock's factory outlives the registry it was made for
      jest.dontMock("../src/patch-target");
    }
  });
  return { internals, refusal };
}

/** The target's functions as they are in `internals`, by name. */
const functions = (internals: Internals, target: PatchTarget): Record<string, unknown> =>
  Object.fromEntries(Object.keys(target.sources).map((name) => [name, targetAt(internals, name)]));

/** Sets what a target's name names in `internals`. */
function replace(internals: Internals, name: string, by: unknown): void {
  const dot = name.lastIndexOf(".");
  (targetAt(internals, name.slice(0, dot)) as Record<string, unknown>)[name.slice(dot + 1)] = by;
}

it("package.json pins every nats.js package at the version the patches were written for, as installed", () => {
  const { dependencies } = JSON.parse(readFileSync(join(__dirname, "../../../package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  // @nats-io/services brings its own nats-core; jetstream, kv and transport-node need the nats-core of their version
  const nats = Object.entries(dependencies).filter(
    ([name]) => name.startsWith("@nats-io/") && name !== "@nats-io/services",
  );
  for (const [, target] of PATCHES) {
    expect(installedVersion(target.library)).toBe(target.version);
    expect(nats).toEqual(nats.map(([name]) => [name, target.version]));
  }
});

describe.each(PATCHES)("%s", (module, target) => {
  it("starts on the installed nats.js and replaces its target", () => {
    const { internals, refusal } = importPatch(module);
    expect(refusal).toBeUndefined();
    const replaced = Object.entries(functions(internals, target)).filter(
      ([name, fn]) => sourceFingerprint(fn) !== target.sources[name],
    );
    expect(replaced.length).toBeGreaterThan(0);
  });

  it("refuses to start on another version of nats.js, saying what to do, and patches nothing", () => {
    const { internals, refusal } = importPatch(module, { version: "9.9.9" });
    expect(refusal?.message).toContain(`${target.library} 9.9.9 is installed, not ${target.version}`);
    expect(refusal?.message).toContain(target.decision);
    expect(refusal?.message).toContain("re-measure the patch");
    for (const [name, fn] of Object.entries(functions(internals, target))) {
      expect(sourceFingerprint(fn)).toBe(target.sources[name]);
    }
  });

  it.each(Object.keys(target.sources))("refuses to start when %s has changed, and patches nothing", (name) => {
    let changed: unknown;
    const { internals, refusal } = importPatch(module, {
      change: (nats) => {
        const original = targetAt(nats, name) as (...args: unknown[]) => unknown;
        changed = function (this: unknown, ...args: unknown[]) {
          return original.apply(this, args);
        };
        replace(nats, name, changed);
      },
    });
    expect(refusal?.message).toContain(`${name} has changed`);
    expect(refusal?.message).toContain(target.decision);
    for (const [other, fn] of Object.entries(functions(internals, target))) {
      if (other === name) expect(fn).toBe(changed);
      else expect(sourceFingerprint(fn)).toBe(target.sources[other]);
    }
  });

  it.each(Object.keys(target.sources))("refuses to start when %s is gone", (name) => {
    const { refusal } = importPatch(module, {
      change: (nats) => replace(nats, name, undefined),
    });
    expect(refusal?.message).toContain(`${name} is not a function any more`);
  });
});
