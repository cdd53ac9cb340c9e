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

/** Each service as its own process (scripts/run-service.sh: its bundle from `buildBundles`), output prefixed with its name. */
export function spawnService(
  name: string,
  env: NodeJS.ProcessEnv,
  index: number,
  write = (s: string) => process.stdout.write(s),
): ServiceProcess {
  const child = spawn(join(REPO_ROOT, "scripts/run-service.sh"), [name], {
    cwd: REPO_ROOT,
    env: { ...env, NODE: process.execPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = `\x1b[${COLORS[index % COLORS.length]}m${name.padEnd(13)}|\x1b[0m `;
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
