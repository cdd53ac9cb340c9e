/**
 * Starts the system as `npm start` does (scripts/start.ts in its own process,
 * provisioning its own nats-server and database), uses the printed zuliprc,
 * then sends SIGINT and checks that everything it started is gone.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient, ok } from "@teamchat/shared/src/testing/api";
import { freePort, REPO_ROOT } from "../../scripts/lib/infra";

jest.setTimeout(180_000);

let child: ChildProcess;
let output = "";
let dataDir: string;
let port: number;

function waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      const m = output.match(pattern);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve(m);
      }
    };
    child.stdout!.on("data", check);
    check();
  });
}

/** Processes whose command line names our data directory: nats-server, the database and search's PostgreSQL. */
const infraProcesses = () =>
  spawnSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((l) => l.includes(dataDir) && !l.includes("ps -eo"));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "teamchat-e2e-"));
  port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), TEAMCHAT_DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  delete env.MONGO_URL;
  delete env.NATS_URL;
  child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "scripts/start.ts")], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  await waitFor(/Stop with Ctrl-C/, 150_000);
});

afterAll(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

it("prints the base URL, credentials and a zuliprc that works with the API", async () => {
  expect(output).toContain(`Team chat is running at http://localhost:${port}`);
  const rcPath = output.match(/zuliprc:\s+(\S+)/)![1]!;
  expect(rcPath).toBe(join(dataDir, "zuliprc"));
  const rc = Object.fromEntries(
    readFileSync(rcPath, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => l.split("=", 2) as [string, string]),
  );
  expect(readFileSync(rcPath, "utf8").startsWith("[api]\n")).toBe(true);
  expect(rc.site).toBe(`http://localhost:${port}`);
  expect(output).toContain(`curl -sS -u ${rc.email}:${rc.key} http://localhost:${port}/api/v1/users/me`);
  const client = new ApiClient(`http://127.0.0.1:${port}`, { email: rc.email!, apiKey: rc.key! });
  const me = ok(await client.get("/users/me"));
  expect(me).toMatchObject({ email: "owner@example.com", role: 100, is_owner: true });
  expect(ok(await client.get("/server_settings")).realm_name).toBe("Demo Organization");
  // The owner holds the permission to create users.
  expect(me.user_id).toBeGreaterThan(0);
});

it("Ctrl-C drains and stops everything it started", async () => {
  expect(infraProcesses().length).toBe(3);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  child.kill("SIGINT");
  expect(await exited).toBe(0);
  expect(output).toContain("[start] stopped.");
  expect(infraProcesses()).toEqual([]);
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
});
