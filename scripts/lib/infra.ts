/**
 * Finds or installs, then starts, the infrastructure: a MongoDB-protocol server
 * and nats-server with JetStream. Order: MONGO_URL / NATS_URL when set; else
 * binaries on PATH or in the tool cache; else install (nats-server from Debian's
 * package, FerretDB built from the Go module proxy). Everything binds to loopback.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer, connect } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(__dirname, "../..");
export const TOOL_CACHE =
  process.env.TEAMCHAT_TOOL_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "teamchat");

export interface Infra {
  mongoUrl: string;
  natsUrl: string;
  /** Stops what this call started (nothing for servers given by URL). */
  stop(): Promise<void>;
}

export interface InfraOptions {
  /** Where FerretDB's SQLite files and NATS' JetStream store live. */
  dataDir: string;
  /** Progress lines go here. */
  progress?: (line: string) => void;
  /** Output of the started servers (default: discarded). */
  serverOutput?: (name: string, line: string) => void;
}

const say = (opts: InfraOptions, line: string) =>
  (opts.progress ?? ((l) => process.stderr.write(`${l}\n`)))(`[infra] ${line}`);

export class ProvisionError extends Error {}

function which(cmd: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  const found = r.stdout.trim();
  if (found) return found;
  for (const dir of ["/usr/sbin", "/usr/local/sbin", "/sbin", join(TOOL_CACHE, "bin")]) {
    if (existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
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

function runLoud(cmd: string, args: string[], opts: InfraOptions): number {
  say(opts, `$ ${cmd} ${args.join(" ")}`);
  return spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"] }).status ?? 1;
}

/** nats-server on PATH, else Debian's package (root + apt-get), else built from the Go module proxy. */
export function ensureNatsServer(opts: InfraOptions): string {
  const found = which("nats-server");
  if (found) return found;
  say(opts, "nats-server not found: installing Debian's nats-server package...");
  if (process.getuid?.() === 0 && which("apt-get")) {
    runLoud("apt-get", ["update", "-qq"], opts);
    if (runLoud("apt-get", ["install", "-y", "-qq", "nats-server"], opts) === 0 && which("nats-server")) {
      return which("nats-server")!;
    }
  }
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

/** mongod or ferretdb on PATH or in the tool cache, else FerretDB built by scripts/install-ferretdb.sh. */
export function ensureMongoServer(opts: InfraOptions): { kind: "mongod" | "ferretdb"; bin: string } {
  const mongod = which("mongod");
  if (mongod) return { kind: "mongod", bin: mongod };
  const ferret = which("ferretdb");
  if (ferret) return { kind: "ferretdb", bin: ferret };
  say(opts, "no MongoDB-protocol server found: building FerretDB v1.24.2 (first run only, ~2-4 minutes)...");
  const r = spawnSync("bash", [join(REPO_ROOT, "scripts/install-ferretdb.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    env: { ...process.env, TEAMCHAT_TOOL_CACHE: TOOL_CACHE },
  });
  const bin = r.stdout.trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !existsSync(bin)) {
    throw new ProvisionError("FerretDB could not be built (see the messages above): install Go or set MONGO_URL");
  }
  return { kind: "ferretdb", bin };
}

function startProcess(name: string, bin: string, args: string[], opts: InfraOptions): ChildProcess {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  const forward = (chunk: Buffer) => {
    if (!opts.serverOutput) return;
    for (const line of chunk.toString().split("\n")) if (line.trim()) opts.serverOutput(name, line);
  };
  child.stdout!.on("data", forward);
  child.stderr!.on("data", forward);
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function startNats(opts: InfraOptions): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = ensureNatsServer(opts);
  const port = await freePort();
  const store = join(opts.dataDir, "nats");
  mkdirSync(store, { recursive: true });
  const child = startProcess("nats", bin, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], opts);
  await waitForPort(port, "nats-server", 15_000, child);
  say(opts, `nats-server (JetStream) on 127.0.0.1:${port}`);
  return { url: `nats://127.0.0.1:${port}`, stop: () => stopProcess(child) };
}

export async function startMongo(opts: InfraOptions): Promise<{ url: string; stop(): Promise<void> }> {
  const server = ensureMongoServer(opts);
  const port = await freePort();
  const dir = join(opts.dataDir, server.kind);
  mkdirSync(dir, { recursive: true });
  const args =
    server.kind === "mongod"
      ? ["--dbpath", dir, "--port", String(port), "--bind_ip", "127.0.0.1", "--quiet"]
      : [
          "--handler=sqlite",
          // Files, not FerretDB's in-memory SQLite: that mode stalls under concurrent connections.
          `--sqlite-url=file:${dir}/`,
          `--listen-addr=127.0.0.1:${port}`,
          "--telemetry=disable",
          "--state-dir=-",
          "--debug-addr=-",
          "--log-level=warn",
        ];
  const child = startProcess(server.kind, server.bin, args, opts);
  await waitForPort(port, server.kind, 30_000, child);
  say(opts, `${server.kind} on 127.0.0.1:${port} (data in ${dir})`);
  return { url: `mongodb://127.0.0.1:${port}`, stop: () => stopProcess(child) };
}

/** Servers given by MONGO_URL / NATS_URL are used as they are; the others are started here. */
export async function provisionInfra(opts: InfraOptions): Promise<Infra> {
  mkdirSync(opts.dataDir, { recursive: true });
  const started: Array<() => Promise<void>> = [];
  try {
    let natsUrl = process.env.NATS_URL;
    if (natsUrl) say(opts, `using NATS_URL=${natsUrl}`);
    else {
      const nats = await startNats(opts);
      started.push(nats.stop);
      natsUrl = nats.url;
    }
    let mongoUrl = process.env.MONGO_URL;
    if (mongoUrl) say(opts, `using MONGO_URL=${mongoUrl.replace(/\/\/[^@/]*@/, "//***@")}`);
    else {
      const mongo = await startMongo(opts);
      started.push(mongo.stop);
      mongoUrl = mongo.url;
    }
    return { natsUrl, mongoUrl, stop: async () => void (await Promise.all(started.map((s) => s()))) };
  } catch (err) {
    await Promise.all(started.map((s) => s()));
    throw err;
  }
}
