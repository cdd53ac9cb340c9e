/**
 * kubeconform (a Kubernetes manifest validator) and the Kubernetes API's JSON schemas, both from
 * the registries, kept in the tool cache: kubeconform built by `go install` from the Go module
 * proxy (~20 s, once), the schemas taken from the PyPI package kubernetes-validate (installed in a
 * venv, ~15 s and ~110 MB, once), since kubeconform's own schema source is a GitHub repository.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensurePythonVenv, ProvisionError, say, TOOL_CACHE, which, type ProgressOptions } from "./infra";

const KUBECONFORM_VERSION = "v0.8.0";
const KUBECONFORM = join(TOOL_CACHE, `kubeconform-${KUBECONFORM_VERSION}`, "kubeconform");
const KUBERNETES_VALIDATE = "kubernetes-validate==1.37.0";
/** The Kubernetes API the manifests are checked against (kubernetes-validate ships 1.25 to 1.37). */
export const KUBERNETES_VERSION = "1.33.0";

/** Where Go's official archive installs (not on every PATH). */
const GO_DEFAULT = "/usr/local/go/bin/go";

/** kubeconform, built into the tool cache on first use; needs Go (on PATH or in /usr/local/go). */
function ensureKubeconform(opts: ProgressOptions): string {
  if (existsSync(KUBECONFORM)) return KUBECONFORM;
  const go = which("go") ?? (existsSync(GO_DEFAULT) ? GO_DEFAULT : undefined);
  if (!go) throw new ProvisionError("kubeconform is built with Go, which was not found: install Go 1.22 or later");
  say(opts, `building kubeconform ${KUBECONFORM_VERSION} from the Go module proxy into ${dirname(KUBECONFORM)}...`);
  const r = spawnSync(go, ["install", `github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}`], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, GOBIN: dirname(KUBECONFORM) },
  });
  if (r.status !== 0 || !existsSync(KUBECONFORM))
    throw new ProvisionError("`go install` of kubeconform failed (see above): check access to the Go module proxy");
  return KUBECONFORM;
}

/**
 * kubeconform's `-schema-location` for KUBERNETES_VERSION, made on first use from
 * kubernetes-validate's strict schemas (unknown fields are errors). Those refer to their shared
 * definitions as `/api/_definitions.json`, which resolves against their `$id` to an https URL
 * (kubernetes-validate maps it to its own file; kubeconform would download it): each reference is
 * rewritten to the definitions file beside it.
 */
function ensureKubernetesSchemas(opts: ProgressOptions): string {
  const root = join(TOOL_CACHE, "kubernetes-schemas");
  const dir = join(root, `v${KUBERNETES_VERSION}-standalone-strict`);
  const complete = join(dir, ".complete");
  if (!existsSync(complete)) {
    const venv = ensurePythonVenv(
      {
        what: "the Kubernetes API schemas (kubernetes-validate)",
        dir: join(TOOL_CACHE, "kubernetes-validate-venv"),
        packages: [KUBERNETES_VALIDATE],
        pythonMinors: [9, 14],
      },
      opts,
    );
    const libDir = join(venv, "lib");
    const source = readdirSync(libDir)
      .map((py) => join(libDir, py, "site-packages", "kubernetes_validate", "kubernetes-json-schema"))
      .map((schemas) => join(schemas, `v${KUBERNETES_VERSION}-local-strict`))
      .find((path) => existsSync(path));
    if (!source) throw new ProvisionError(`${KUBERNETES_VALIDATE} has no schemas for Kubernetes ${KUBERNETES_VERSION}`);
    say(opts, `writing kubeconform's schemas for Kubernetes ${KUBERNETES_VERSION} to ${dir}...`);
    // written beside it and renamed into place, so that a run beside this one never reads half of it
    const partial = `${dir}.${process.pid}`;
    mkdirSync(partial, { recursive: true });
    const definitions = `"file://${join(dir, "_definitions.json")}#`;
    for (const file of readdirSync(source).filter((f) => f.endsWith(".json"))) {
      const schema = readFileSync(join(source, file), "utf8").replaceAll('"/api/_definitions.json#', definitions);
      writeFileSync(join(partial, file), schema);
    }
    writeFileSync(join(partial, ".complete"), `${KUBERNETES_VALIDATE}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  }
  return join(
    root,
    "{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}",
    "{{ .ResourceKind }}{{ .KindSuffix }}.json",
  );
}

/** kubeconform's verdict on one resource (its `-output json -verbose`). */
export interface KubeconformResource {
  filename: string;
  kind: string;
  name: string;
  status: "statusValid" | "statusInvalid" | "statusError" | "statusSkipped" | "statusEmpty";
  msg: string;
}

export type Kubeconform = (files: string[]) => KubeconformResource[];

/**
 * A validator of manifest files against the Kubernetes API schemas in strict mode, giving each
 * resource's verdict. A kind without a schema is an error, not skipped (no CRDs here). One run
 * for every file: each run spends most of its time compiling the schemas.
 */
export function kubeconform(opts: ProgressOptions): Kubeconform {
  const bin = ensureKubeconform(opts);
  const schemaLocation = ensureKubernetesSchemas(opts);
  return (files) => {
    const args = ["-strict", "-output", "json", "-verbose", "-kubernetes-version", KUBERNETES_VERSION];
    const r = spawnSync(bin, [...args, "-schema-location", schemaLocation, ...files], { encoding: "utf8" });
    try {
      return (JSON.parse(r.stdout) as { resources: KubeconformResource[] }).resources;
    } catch {
      throw new Error(`kubeconform failed (exit ${r.status}): ${r.stderr}${r.stdout}`);
    }
  };
}
