/**
 * The management CLI creates a second organization; the Host header picks the
 * organization; keys of one organization do not open another.
 */
import { spawn } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { basicAuth } from "@teamchat/shared/src/testing/api";
import { REPO_ROOT } from "../../../scripts/lib/infra";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

/** GET with an explicit Host header (fetch does not allow setting it). */
function get(path: string, host: string, auth?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(sys.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `/api/v1${path}`,
        headers: { host, ...(auth ? { authorization: auth } : {}) },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Runs the CLI asynchronously: the services of this test live in this process and must keep answering. */
function manage(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "scripts/manage.ts"), ...args], {
      env: { ...process.env, NATS_URL: sys.config.NATS_URL },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const CREATE_ACME = [
  "create-realm",
  "--name",
  "Acme",
  "--subdomain",
  "acme",
  "--owner-email",
  "boss@acme.example",
  "--owner-name",
  "The Boss",
];

it("create-realm creates an organization and its owner and prints the owner's API key", async () => {
  const run = await manage(...CREATE_ACME);
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('Created organization "Acme" at http://acme.localhost');
  const key = /API key: ([A-Za-z0-9]{32})/.exec(run.stdout)![1]!;
  const auth = basicAuth({ email: "boss@acme.example", apiKey: key });

  const me = await get("/users/me", "acme.localhost", auth);
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ email: "boss@acme.example", role: 100, is_owner: true });
  expect((await get("/server_settings", "acme.localhost")).body).toMatchObject({
    realm_name: "Acme",
    realm_uri: "http://acme.localhost",
  });

  // The bare host and IPs are the default organization: acme's key means nothing there.
  expect((await get("/server_settings", "localhost")).body.realm_name).toBe("Test Organization");
  expect((await get("/users/me", "localhost", auth)).status).toBe(401);
  expect((await get("/users/me", "127.0.0.1", auth)).status).toBe(401);
});

it("running it again finds the organization and issues a new key", async () => {
  const run = await manage(...CREATE_ACME);
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('Found existing organization "Acme"');
  expect(run.stdout).toContain("existing");
});

it("an unknown subdomain is refused; a wrong command prints the usage", async () => {
  const res = await get("/server_settings", "nowhere.localhost");
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "There is no organization at this address" });
  const bad = await manage("frobnicate");
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain("usage: npm run manage -- create-realm");
});
