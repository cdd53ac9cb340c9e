/**
 * A service whose supervisor starts it while NATS restarts (an upgrade, a
 * crash, the fault test's restart) rides the restart out instead of failing
 * its start: the connection, the JetStream set-up, its consumers and the
 * final flush are asked again. Identity is started here, undisturbed once to
 * time its start, then with NATS restarted at points spread over that time.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { BusClient, createLogger, healthContract, loadConfig, startService } from "@teamchat/shared";
import { freePort, startNats, type StartedServer } from "../../../scripts/lib/infra";
import { buildIdentity } from "../src/app";

jest.setTimeout(180_000);

const dataDir = mkdtempSync(join(tmpdir(), "teamchat-start-restart-"));
let port: number;
let nats: StartedServer;

beforeAll(async () => {
  port = await freePort();
  nats = await startNats({ dataDir, port, progress: () => undefined });
});
afterAll(async () => {
  await nats.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const config = () =>
  loadConfig({
    ...process.env,
    NODE_ENV: "test",
    NATS_URL: `nats://127.0.0.1:${port}`,
    MONGO_URL: process.env.TEST_MONGO_URL!,
    MONGO_DB_PREFIX: `t${randomBytes(4).toString("hex")}`,
    EXTERNAL_URL: "http://localhost",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
  });
const start = () => startService("identity", buildIdentity, config(), createLogger("identity", "silent"));

/**
 * Whether the started instance answers on the bus within 10 s, asked from
 * another connection: one whose start ended before the restart answers once
 * its connection is back.
 */
async function answers(): Promise<boolean> {
  const nc = await connect({ servers: `nats://127.0.0.1:${port}` });
  const client = new BusClient(nc, { timeoutMs: 2_000 });
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      try {
        const ctx = { realm: null, actor: null, requestId: "start-test" };
        return (await client.request(healthContract("identity"), {}, ctx)).service === "identity";
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await nc.close();
  }
}

it("starts whenever NATS restarts during its start, and then answers", async () => {
  const began = Date.now();
  const undisturbed = await start();
  const startMs = Date.now() - began;
  await undisturbed.shutdown();

  const failures: string[] = [];
  for (const fraction of [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9]) {
    const starting = start();
    await new Promise((r) => setTimeout(r, startMs * fraction));
    await nats.stop();
    nats = await startNats({ dataDir, port, progress: () => undefined });
    try {
      const started = await starting;
      if (!(await answers())) failures.push(`${fraction}: started, but does not answer`);
      await started.shutdown();
    } catch (err) {
      failures.push(`${fraction} of ${startMs} ms: ${(err as Error).stack}`);
    }
  }
  expect(failures).toEqual([]);
});
