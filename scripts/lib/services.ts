import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { REPO_ROOT } from "./infra";

const COLORS = [36, 35, 33, 32, 34];
const LEVELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** One pino JSON line as `time LEVEL msg {other fields}`; anything else as it is. */
export function formatLogLine(line: string): string {
  try {
    const {
      time,
      level,
      msg,
      service: _s,
      name: _n,
      pid: _p,
      hostname: _h,
      ...rest
    } = JSON.parse(line) as Record<string, unknown>;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    return `${String(time ?? "").slice(11, 23)} ${LEVELS[level as number] ?? level} ${msg ?? ""}${extra}`;
  } catch {
    return line;
  }
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
}

/**
 * Each service as its own process (scripts/run-service.sh: its bundle from
 * `buildBundles`), output prefixed with `label` (default its name).
 */
export function spawnService(
  name: string,
  env: NodeJS.ProcessEnv,
  index: number,
  write: (s: string) => void = (s) => void process.stdout.write(s),
  label = name,
): ServiceProcess {
  const child = spawn(join(REPO_ROOT, "scripts/run-service.sh"), [name], {
    cwd: REPO_ROOT,
    env: { ...env, NODE: process.execPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = `\x1b[${COLORS[index % COLORS.length]}m${label.padEnd(15)}|\x1b[0m `;
  let buffered = "";
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) write(prefix + formatLogLine(line) + "\n");
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  return { name, child };
}

export async function stopServices(procs: ServiceProcess[], timeoutMs = 15_000): Promise<void> {
  await Promise.all(
    procs.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      await exited;
      clearTimeout(timer);
    }),
  );
}

export async function waitForHealth(baseUrl: string, timeoutMs: number, procs: ServiceProcess[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const dead = procs.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited with code ${dead.child.exitCode} during start (its log is above)`);
    try {
      const res = await fetch(`${baseUrl}/health`);
      last = await res.text();
      if (res.ok) return;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`services not healthy after ${timeoutMs / 1000}s: ${last}`);
}

export interface Instance {
  /** e.g. "messaging#2" */
  label: string;
  service: string;
  /** 0-based among its service's instances */
  n: number;
  proc: ServiceProcess;
}

export interface ServiceInstancesOptions {
  services: readonly string[];
  perService: number;
  /** every instance's environment; gateway n listens on `gatewayPorts[n]` */
  env: NodeJS.ProcessEnv;
  /** more environment for one instance, the same at each of its starts */
  instanceEnv?(instance: Instance): NodeJS.ProcessEnv;
  gatewayPorts: number[];
  /** the instances' output lines (default: stdout) */
  write?: (s: string) => void;
  /** an instance exited neither stopped nor killed here (a crash) */
  onCrash(instance: Instance, code: number | null, signal: NodeJS.Signals | null): void;
}

/**
 * `perService` instances of every service as separate processes, each gateway
 * on its own port: what `npm start --instances N` runs and the fault test
 * kills and starts again.
 */
export class ServiceInstances {
  readonly all: Instance[];
  private stopping = false;

  constructor(private readonly opts: ServiceInstancesOptions) {
    this.all = opts.services.flatMap((service) =>
      Array.from({ length: opts.perService }, (_, n) => {
        const instance: Instance = { label: `${service}#${n + 1}`, service, n, proc: undefined as never };
        this.spawn(instance);
        return instance;
      }),
    );
  }

  get procs(): ServiceProcess[] {
    return this.all.map((i) => i.proc);
  }

  /** Starts the instance's process (again). */
  spawn(instance: Instance): void {
    const { service, n } = instance;
    const env = {
      ...this.opts.env,
      ...(service === "gateway" ? { PORT: String(this.opts.gatewayPorts[n]) } : {}),
      ...this.opts.instanceEnv?.(instance),
    };
    const label = this.opts.perService > 1 ? instance.label : service;
    const proc = spawnService(service, env, this.opts.services.indexOf(service), this.opts.write, label);
    proc.child.once("exit", (code, signal) => {
      if (!this.stopping && signal !== "SIGKILL") this.opts.onCrash(instance, code, signal);
    });
    instance.proc = proc;
  }

  /** Until every gateway answers its /health (every service reachable through it). */
  async waitHealthy(timeoutMs: number): Promise<void> {
    for (const port of this.opts.gatewayPorts) await waitForHealth(`http://127.0.0.1:${port}`, timeoutMs, this.procs);
  }

  /** SIGKILL, then a fresh process in its place; a gateway is back once it answers on its port. */
  async killAndRestart(instance: Instance): Promise<void> {
    const exited = new Promise<void>((r) => instance.proc.child.once("exit", () => r()));
    instance.proc.child.kill("SIGKILL");
    await exited;
    this.spawn(instance);
    // the others join the bus on their own
    if (instance.service === "gateway") {
      await waitForHealth(`http://127.0.0.1:${this.opts.gatewayPorts[instance.n]}`, 60_000, [instance.proc]);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await stopServices(this.procs);
  }
}
