/**
 * Finds or installs, then starts, the infrastructure: a MongoDB-protocol server,
 * nats-server with JetStream, and with the embedded database PostgreSQL for
 * full-text search. Order: MONGO_URL / NATS_URL / SEARCH_URL when set; else
 * binaries on PATH or in the tool cache; else install (nats-server and
 * PostgreSQL from Debian's packages, SecantusDB from PyPI into a venv in the
 * tool cache). Everything binds to loopback.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, connect } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect as connectNats } from "@nats-io/transport-node";
import { natsServers } from "@teamchat/shared/src/config";

export const REPO_ROOT = resolve(__dirname, "../..");
export const TOOL_CACHE =
  process.env.TEAMCHAT_TOOL_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "teamchat");

export interface Infra {
  mongoUrl: string;
  natsUrl: string;
  /** PostgreSQL for search (SEARCH_URL); undefined when the database is MongoDB, whose text index serves it */
  searchUrl?: string;
  /** The servers this call started (none for servers given by URL), e.g. to read their memory use. */
  servers: Array<{ name: string; pid: number }>;
  /** Stops what this call started (nothing for servers given by URL). */
  stop(): Promise<void>;
}

export interface InfraOptions {
  /** Where the database's files and NATS' JetStream store live. */
  dataDir: string;
  /** Progress lines go here. */
  progress?: (line: string) => void;
  /** Output of the started servers (default: discarded). */
  serverOutput?: (name: string, line: string) => void;
}

export interface ProvisionOptions extends InfraOptions {
  /** nats-server nodes to start as one cluster (default 1: a single server, no cluster). */
  natsNodes?: number;
}

/** What only reports progress needs of InfraOptions. */
export type ProgressOptions = Pick<InfraOptions, "progress">;

export const say = (opts: ProgressOptions, line: string) =>
  (opts.progress ?? ((l) => process.stderr.write(`${l}\n`)))(`[infra] ${line}`);

export class ProvisionError extends Error {}

export function which(cmd: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  const found = r.stdout.trim();
  if (found) return found;
  for (const dir of ["/usr/sbin", "/usr/local/sbin", "/sbin", join(TOOL_CACHE, "bin")]) {
    if (existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

/**
 * A port nothing listens on, for a server started later (and again on the same port after a
 * restart). Taken below the kernel's ephemeral range where there is one: a port from that range,
 * once free, can become the local port of any outgoing connection (a client of NATS or the
 * database) before the server binds it, and the server then fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  if (below === undefined) return listenable(0);
  for (let attempt = 0; ; attempt++) {
    const port = below - FIXED_PORTS + Math.floor(Math.random() * FIXED_PORTS);
    if (handedOut.has(port)) continue;
    // taken before the check, so that concurrent calls cannot both hand it out
    handedOut.add(port);
    try {
      return await listenable(port);
    } catch (err) {
      handedOut.delete(port);
      if (attempt >= 100) throw err;
    }
  }
}

/** How many ports below the ephemeral range freePort picks from. */
const FIXED_PORTS = 10_000;
/** Ports this process has handed out: not handed out twice while their servers may be down. */
const handedOut = new Set<number>();

/** The lowest port of the kernel's ephemeral range (Linux), if it leaves room below it. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return low - FIXED_PORTS >= 1024 ? low : undefined;
  } catch {
    return undefined;
  }
}

/** `port` (0: any the kernel picks) once bound and released on every interface, or the bind's error. */
function listenable(port: number): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(port, "0.0.0.0", () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => res(bound));
    });
  });
}

export async function waitForPort(port: number, what: string, timeoutMs = 30_000, proc?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && proc.exitCode !== null)
      throw new ProvisionError(`${what} exited with code ${proc.exitCode} before listening`);
    const ok = await new Promise<boolean>((res) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), res(true)));
      s.once("error", () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new ProvisionError(`${what} did not listen on 127.0.0.1:${port} within ${timeoutMs / 1000}s`);
}

function runLoud(cmd: string, args: string[], opts: ProgressOptions): number {
  say(opts, `$ ${cmd} ${args.join(" ")}`);
  return spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"] }).status ?? 1;
}

/** A command on PATH, else Debian's package that has it (root + apt-get); undefined when neither works. */
export function ensureDebianCommand(cmd: string, pkg: string, opts: ProgressOptions): string | undefined {
  const found = which(cmd);
  if (found || process.getuid?.() !== 0 || !which("apt-get")) return found;
  say(opts, `${cmd} not found: installing Debian's ${pkg} package...`);
  runLoud("apt-get", ["update", "-qq"], opts);
  runLoud("apt-get", ["install", "-y", "-qq", pkg], opts);
  return which(cmd);
}

/** nats-server on PATH, else Debian's package (root + apt-get), else built from the Go module proxy. */
export function ensureNatsServer(opts: InfraOptions): string {
  const found = ensureDebianCommand("nats-server", "nats-server", opts);
  if (found) return found;
  if (which("go")) {
    say(opts, "building nats-server from the Go module proxy into the tool cache...");
    const r = spawnSync("go", ["install", "github.com/nats-io/nats-server/v2@v2.10.29"], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, GOBIN: join(TOOL_CACHE, "bin") },
    });
    if (r.status === 0 && which("nats-server")) return which("nats-server")!;
  }
  throw new ProvisionError(
    "nats-server not found and could not be installed (needs root with apt-get, or a Go toolchain): install nats-server or set NATS_URL",
  );
}

export interface PythonVenvSpec {
  /** what the venv is for, in messages, e.g. "SecantusDB (the embedded database)" */
  what: string;
  /** the venv's directory (in the tool cache) */
  dir: string;
  /** pinned requirements, `name==version` */
  packages: string[];
  /** the CPython 3 minor versions the packages install on, e.g. [10, 13] for 3.10–3.13 */
  pythonMinors: [number, number];
  /** what the user can do instead when nothing can be installed, e.g. "set MONGO_URL" */
  otherwise?: string;
  /** a pyenv version (e.g. "3.10") to build when no python in range is found (slow: first run only) */
  pyenvVersion?: string;
}

/** Whether the venv holds exactly the pinned packages (pip writes each dist-info once its install is complete). */
function venvComplete(spec: PythonVenvSpec): boolean {
  const libDir = join(spec.dir, "lib");
  if (!existsSync(join(spec.dir, "bin", "python")) || !existsSync(libDir)) return false;
  const sitePackages = readdirSync(libDir).map((py) => join(libDir, py, "site-packages"));
  // a dist-info directory spells the name with "_" for "-" (zulip-term==0.7.0: zulip_term-0.7.0.dist-info)
  const distInfo = (pin: string) => {
    const [name, version] = pin.split("==");
    return `${name!.replace(/-/g, "_")}-${version}.dist-info`;
  };
  return spec.packages.every((pin) =>
    sitePackages.some(
      (dir) => existsSync(join(dir, distInfo(pin))) || existsSync(join(dir, `${pin.replace("==", "-")}.dist-info`)),
    ),
  );
}

/** pyenv's root, where it keeps the Pythons it built (versions/<version>/bin). */
const PYENV_ROOT = process.env.PYENV_ROOT ?? join(homedir(), ".pyenv");

/**
 * The first python3 whose minor version is within `[min, max]` (the versions the
 * packages ship wheels for or run on): on PATH, then those pyenv built.
 */
function findPython([min, max]: [number, number]): string | undefined {
  const candidates = ["python3"];
  for (let minor = max; minor >= min; minor--) candidates.push(`python3.${minor}`);
  const pyenvVersions = existsSync(join(PYENV_ROOT, "versions")) ? readdirSync(join(PYENV_ROOT, "versions")) : [];
  for (const version of pyenvVersions.sort().reverse())
    candidates.push(join(PYENV_ROOT, "versions", version, "bin", "python3"));
  for (const cmd of candidates) {
    const r = spawnSync(cmd, ["-c", "import sys; print(sys.version_info[0] * 100 + sys.version_info[1])"], {
      encoding: "utf8",
    });
    const v = Number(r.stdout?.trim());
    if (r.status === 0 && v >= 300 + min && v <= 300 + max) return cmd;
  }
  return undefined;
}

/** `python -m venv` into `dir`; Debian's python3 lacks ensurepip until python3-venv is installed. */
function makeVenv(python: string, dir: string, opts: ProgressOptions): boolean {
  const attempt = () => {
    rmSync(dir, { recursive: true, force: true });
    say(opts, `$ ${python} -m venv ${dir}`);
    const r = spawnSync(python, ["-m", "venv", dir], { encoding: "utf8" });
    return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
  };
  let r = attempt();
  if (!r.ok && /ensurepip/.test(r.output) && process.getuid?.() === 0 && which("apt-get")) {
    say(opts, "python3 cannot create a venv (no ensurepip): installing Debian's python3-venv package...");
    runLoud("apt-get", ["update", "-qq"], opts);
    if (runLoud("apt-get", ["install", "-y", "-qq", "python3-venv"], opts) === 0) r = attempt();
  }
  if (!r.ok) {
    process.stderr.write(r.output);
    rmSync(dir, { recursive: true, force: true });
  }
  return r.ok;
}

/**
 * A venv holding the pinned packages from PyPI: at once when a complete install
 * is there, else created (or completed) now, saying so as it goes. Returns the
 * venv's directory; throws ProvisionError saying what to do when it cannot.
 */
export function ensurePythonVenv(spec: PythonVenvSpec, opts: ProgressOptions): string {
  if (venvComplete(spec)) return spec.dir;
  const [min, max] = spec.pythonMinors;
  const orElse = spec.otherwise ? ` or ${spec.otherwise}` : "";
  let python = findPython(spec.pythonMinors);
  if (!python && spec.pyenvVersion && which("pyenv")) {
    say(
      opts,
      `no Python 3.${min}-3.${max} found: building Python ${spec.pyenvVersion} with pyenv (first run only, minutes)...`,
    );
    runLoud("pyenv", ["install", "--skip-existing", spec.pyenvVersion], opts);
    python = findPython(spec.pythonMinors);
  }
  if (!python) {
    throw new ProvisionError(
      `${spec.what} needs Python 3.${min}-3.${max}, which was not found: install python3 (3.${min}-3.${max}), e.g. \`pyenv install 3.${min}\`${orElse}`,
    );
  }
  say(opts, `installing ${spec.what}, ${spec.packages.join(" ")}, into ${spec.dir} (first run only, ~10-30 s)...`);
  if (!existsSync(join(spec.dir, "bin", "pip")) && !makeVenv(python, spec.dir, opts)) {
    throw new ProvisionError(
      `\`${python} -m venv\` failed (see the messages above): install python3-venv (Debian/Ubuntu)${orElse}`,
    );
  }
  const pip = join(spec.dir, "bin", "pip");
  if (
    runLoud(pip, ["install", "--quiet", "--disable-pip-version-check", ...spec.packages], opts) !== 0 ||
    !venvComplete(spec)
  ) {
    throw new ProvisionError(
      `pip could not install ${spec.packages.join(" ")} (see the messages above): check access to PyPI${orElse}`,
    );
  }
  say(opts, `${spec.what} installed in ${spec.dir}`);
  return spec.dir;
}

const SECANTUSDB_VENV: PythonVenvSpec = {
  what: "SecantusDB (the embedded database, as no mongod was found)",
  dir: join(TOOL_CACHE, "secantusdb-venv"),
  // exactly the version scripts/secantusd.py's patches were written for: it refuses to start on another
  packages: ["secantusdb==0.7.0b3"],
  // SecantusDB ships wheels for CPython 3.10–3.13 only.
  pythonMinors: [10, 13],
  otherwise: "set MONGO_URL",
};
const SECANTUSDB_CACHE = "64M";
/** In memory, WiredTiger holds every document in its cache: the tests' data must fit. */
const SECANTUSDB_MEMORY_CACHE = "512M";

/** SecantusDB's launcher: its own CLI, with a speed-up for its write path (the file says which and why). */
const SECANTUSDB_LAUNCHER = join(REPO_ROOT, "scripts", "secantusd.py");

/**
 * mongod on PATH, else SecantusDB installed from PyPI into a venv in the tool cache (first run only):
 * the program to start, the arguments that come before its options, and its environment.
 */
export function ensureMongoServer(opts: InfraOptions): {
  kind: "mongod" | "secantusdb";
  bin: string;
  launcher: string[];
  env: NodeJS.ProcessEnv;
} {
  const mongod = which("mongod");
  if (mongod) return { kind: "mongod", bin: mongod, launcher: [], env: process.env };
  const python = join(ensurePythonVenv(SECANTUSDB_VENV, opts), "bin", "python");
  return {
    kind: "secantusdb",
    bin: python,
    launcher: [SECANTUSDB_LAUNCHER],
    // SecantusDB serves each connection on its own thread, and glibc gives threads their own malloc
    // arenas (up to 8 per core), each keeping what it freed: two arenas, as scripts/run-service.sh gives
    // the services, lower its peak memory at no measurable CPU cost (docs/adr/0001-embedded-database.md).
    env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2" },
  };
}

function startProcess(
  name: string,
  bin: string,
  args: string[],
  opts: InfraOptions,
  env: NodeJS.ProcessEnv = process.env,
  user?: { uid: number; gid: number },
): ChildProcess {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env, ...user });
  const forward = (chunk: Buffer) => {
    if (!opts.serverOutput) return;
    for (const line of chunk.toString().split("\n")) if (line.trim()) opts.serverOutput(name, line);
  };
  child.stdout!.on("data", forward);
  child.stderr!.on("data", forward);
  return child;
}

/** SIGTERM (or `signal`), then SIGKILL after `graceMs`. */
async function stopProcess(child: ChildProcess, graceMs = 5_000, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface StartedServer {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
  /** SIGKILL: gone at once, as a crashed node is. */
  kill(): Promise<void>;
}

/** A node's place in a NATS cluster: its name, its route port, and the other nodes' route ports. */
interface NatsClusterMembership {
  serverName: string;
  routePort: number;
  peerRoutePorts: number[];
}

const NATS_CLUSTER_NAME = "teamchat";

/**
 * Go's soft memory limit for the nats-server we start (GOMEMLIMIT in the environment wins): Go
 * otherwise lets its heap grow to twice what is live before collecting. The limit is soft, so a
 * server that needs more gets it, at the cost of collecting more often. The figure trades
 * nats-server's memory against its CPU under a long event stream
 * (docs/adr/0023-process-memory-settings.md).
 */
const NATS_MEMORY_LIMIT = "96MiB";

/**
 * `port`: a restart comes back where the clients look for it (default: a free one).
 * `cluster`: the node joins a cluster (routes on loopback; JetStream store per node).
 */
export async function startNats(
  opts: InfraOptions & { port?: number; cluster?: NatsClusterMembership },
): Promise<StartedServer> {
  const bin = ensureNatsServer(opts);
  const port = opts.port ?? (await freePort());
  const { cluster } = opts;
  const store = join(opts.dataDir, cluster?.serverName ?? "nats");
  mkdirSync(store, { recursive: true });
  const args = ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store];
  if (cluster) {
    const route = (p: number) => `nats://127.0.0.1:${p}`;
    args.push("--server_name", cluster.serverName, "--cluster_name", NATS_CLUSTER_NAME);
    args.push("--cluster", route(cluster.routePort), "--routes", cluster.peerRoutePorts.map(route).join(","));
  }
  const name = cluster?.serverName ?? "nats";
  const child = startProcess(name, bin, args, opts, { GOMEMLIMIT: NATS_MEMORY_LIMIT, ...process.env });
  await waitForPort(port, "nats-server", 15_000, child);
  say(opts, `nats-server ${cluster ? `${name} ` : ""}(JetStream) on 127.0.0.1:${port}`);
  return {
    name: "nats-server",
    url: `nats://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => stopProcess(child),
    kill: () => stopProcess(child, 0, "SIGKILL"),
  };
}

export interface NatsCluster {
  /** Every node's URL, comma-separated (NATS_URL), so that clients fail over. */
  url: string;
  /** The running process of each node (node i is `nats-<i+1>`). */
  nodes: StartedServer[];
  /** Starts node i again on its ports and store (after `kill` or `stop`); resolves once JetStream answers. */
  restartNode(i: number): Promise<void>;
  stop(): Promise<void>;
}

/** Until JetStream answers through `url` (a cluster elects its meta leader first): streams can be made then. */
export async function waitForJetStream(url: string, timeoutMs = 30_000): Promise<void> {
  const nc = await connectNats({ servers: natsServers(url), name: "infra", maxReconnectAttempts: -1 });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new ProvisionError(`JetStream not ready on ${url}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await nc.close();
  }
}

/** `nodes` nats-servers on loopback, routed to each other as one cluster with JetStream, each with its own store. */
export async function startNatsCluster(opts: InfraOptions & { nodes: number }): Promise<NatsCluster> {
  const ports = await Promise.all(Array.from({ length: opts.nodes }, () => freePort()));
  const routePorts = await Promise.all(Array.from({ length: opts.nodes }, () => freePort()));
  const startNode = (i: number) =>
    startNats({
      ...opts,
      port: ports[i],
      cluster: {
        serverName: `nats-${i + 1}`,
        routePort: routePorts[i]!,
        peerRoutePorts: routePorts.filter((_, j) => j !== i),
      },
    });
  const nodes = await Promise.all(ports.map((_, i) => startNode(i)));
  const url = ports.map((p) => `nats://127.0.0.1:${p}`).join(",");
  const stop = async () => void (await Promise.all(nodes.map((n) => n.stop())));
  try {
    await waitForJetStream(url);
  } catch (err) {
    await stop();
    throw err;
  }
  say(opts, `NATS cluster of ${opts.nodes} nodes ready`);
  return {
    url,
    nodes,
    restartNode: async (i) => {
      nodes[i] = await startNode(i);
      await waitForJetStream(nodes[i]!.url);
    },
    stop,
  };
}

/**
 * mongod, or SecantusDB with its data under `dataDir`, each commit written to the
 * operating system before it is acknowledged (a SIGKILL after acknowledged writes
 * keeps them; a machine failure can lose the last ones, as MongoDB's default
 * 100 ms journal interval can). `inMemory` (tests): nothing on disk.
 * `replicaSet` (SecantusDB only): a one-member replica set instead of a
 * standalone server, to run the services' replica-set path.
 */
export async function startMongo(
  opts: InfraOptions & { inMemory?: boolean; port?: number; replicaSet?: boolean },
): Promise<StartedServer> {
  const server = ensureMongoServer(opts);
  if (opts.replicaSet && server.kind === "mongod") {
    throw new Error("a replica set is started here only with SecantusDB: give mongod's replica set as MONGO_URL");
  }
  const port = opts.port ?? (await freePort());
  const dir = join(opts.dataDir, server.kind);
  // mongod's in-memory engine is Enterprise-only: it always gets a directory.
  const inMemory = opts.inMemory === true && server.kind === "secantusdb";
  if (!inMemory) mkdirSync(dir, { recursive: true });
  const args = server.launcher.concat(
    server.kind === "mongod"
      ? ["--dbpath", dir, "--port", String(port), "--bind_ip", "127.0.0.1", "--quiet"]
      : [
          "--host=127.0.0.1",
          `--port=${port}`,
          // A standalone server: the services take their single-server path (no transactions). Without it
          // SecantusDB answers as a one-member replica set, "secantus": majority writes and transactions.
          ...(opts.replicaSet ? [] : ["--standalone"]),
          "--log-level=WARNING",
          // WiredTiger's cache defaults to 1 GB, most of the whole system's memory under the bench; the
          // services keep the hot data in memory themselves, so a small cache costs no speed
          // (docs/adr/0001-embedded-database.md).
          `--cache-size=${inMemory ? SECANTUSDB_MEMORY_CACHE : SECANTUSDB_CACHE}`,
        ].concat(
          inMemory
            ? ["--storage-path=:memory:"]
            : // each commit written to the OS at once, not fsynced (scripts/secantusd.py): kept across a SIGKILL
              [`--storage-path=${dir}`, "--sync-on-commit", "--sync-method=none"],
        ),
  );
  const child = startProcess(server.kind, server.bin, args, opts, server.env);
  await waitForPort(port, server.kind, 30_000, child);
  say(opts, `${server.kind} on 127.0.0.1:${port} (${inMemory ? "in memory" : `data in ${dir}`})`);
  return {
    name: server.kind,
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    pid: child.pid!,
    // A database gets longer than the default to flush and close its files.
    stop: () => stopProcess(child, 15_000),
    kill: () => stopProcess(child, 0, "SIGKILL"),
  };
}

/** The directory of PostgreSQL's server programs: Debian's newest version, else initdb's on PATH. */
function postgresBinDir(): string | undefined {
  const debian = "/usr/lib/postgresql";
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => existsSync(join(debian, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return join(debian, versions[0]!, "bin");
  const initdb = which("initdb");
  return initdb ? resolve(initdb, "..") : undefined;
}

/** PostgreSQL's server programs, else Debian's postgresql package (root + apt-get). */
export function ensurePostgres(opts: ProgressOptions): string {
  const found = postgresBinDir();
  if (found) return found;
  if (process.getuid?.() === 0 && which("apt-get")) {
    say(opts, "PostgreSQL not found: installing Debian's postgresql package...");
    runLoud("apt-get", ["update", "-qq"], opts);
    runLoud("apt-get", ["install", "-y", "-qq", "postgresql"], opts);
  }
  const installed = postgresBinDir();
  if (installed) return installed;
  throw new ProvisionError(
    "PostgreSQL (the search engine beside the embedded database) not found and could not be installed " +
      "(needs root with apt-get): install postgresql, or set SEARCH_URL",
  );
}

/** PostgreSQL refuses to run as root: as root, its files and process belong to Debian's postgres user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const user = { uid: id("-u"), gid: id("-g") };
  if (!Number.isInteger(user.uid) || user.uid === 0) {
    throw new ProvisionError("PostgreSQL cannot run as root and there is no postgres user: set SEARCH_URL");
  }
  return user;
}

/**
 * PostgreSQL for full-text search, its cluster under `dataDir` (made on first
 * start), trusting local connections on loopback only. `ephemeral` (tests): no
 * fsync, as the data is thrown away.
 */
export async function startPostgres(opts: InfraOptions & { ephemeral?: boolean }): Promise<StartedServer> {
  const bin = ensurePostgres(opts);
  const user = postgresUser();
  const dir = join(opts.dataDir, "postgresql");
  if (!existsSync(join(dir, "PG_VERSION"))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (user) {
      chownSync(dir, user.uid, user.gid);
      // the postgres user must reach its directory through the data directory
      chmodSync(opts.dataDir, statSync(opts.dataDir).mode | 0o011);
    }
    say(opts, `creating a PostgreSQL cluster in ${dir}...`);
    const init = spawnSync(
      join(bin, "initdb"),
      ["-D", dir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
      { encoding: "utf8", ...user },
    );
    if (init.status !== 0) throw new ProvisionError(`initdb failed: ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  // shared buffers: PostgreSQL's default of 128 MB would be most of its memory; the search index is read
  // through the operating system's page cache as well (docs/adr/0037-full-text-search.md)
  const args = [
    "-D",
    dir,
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "shared_buffers=16MB",
  ];
  if (opts.ephemeral) args.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  const child = startProcess("postgresql", join(bin, "postgres"), args, opts, process.env, user);
  await waitForPort(port, "postgresql", 30_000, child);
  say(opts, `postgresql on 127.0.0.1:${port} (data in ${dir})`);
  return {
    name: "postgresql",
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    pid: child.pid!,
    // SIGINT: PostgreSQL's fast shutdown (SIGTERM waits for its clients to leave)
    stop: () => stopProcess(child, 15_000, "SIGINT"),
    kill: () => stopProcess(child, 0, "SIGKILL"),
  };
}

/**
 * Servers given by MONGO_URL / NATS_URL / SEARCH_URL are used as they are; the
 * others are started here. PostgreSQL is started for search only beside
 * SecantusDB: MongoDB's own text index serves search on MongoDB.
 */
export async function provisionInfra(opts: ProvisionOptions): Promise<Infra> {
  mkdirSync(opts.dataDir, { recursive: true });
  const started: StartedServer[] = [];
  const stopAll = async () => void (await Promise.all(started.map((s) => s.stop())));
  try {
    let natsUrl = process.env.NATS_URL;
    if (natsUrl) say(opts, `using NATS_URL=${natsUrl}`);
    else if ((opts.natsNodes ?? 1) > 1) {
      const cluster = await startNatsCluster({ ...opts, nodes: opts.natsNodes! });
      started.push(...cluster.nodes);
      natsUrl = cluster.url;
    } else {
      const nats = await startNats(opts);
      started.push(nats);
      natsUrl = nats.url;
    }
    let mongoUrl = process.env.MONGO_URL;
    if (mongoUrl) say(opts, `using MONGO_URL=${mongoUrl.replace(/\/\/[^@/]*@/, "//***@")}`);
    else {
      const mongo = await startMongo(opts);
      started.push(mongo);
      mongoUrl = mongo.url;
    }
    let searchUrl = process.env.SEARCH_URL;
    if (searchUrl) say(opts, `using SEARCH_URL=${searchUrl.replace(/\/\/[^@/]*@/, "//***@")}`);
    else if (started.some((s) => s.name === "secantusdb")) {
      const postgres = await startPostgres(opts);
      started.push(postgres);
      searchUrl = postgres.url;
    }
    return { natsUrl, mongoUrl, searchUrl, servers: started.map(({ name, pid }) => ({ name, pid })), stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
