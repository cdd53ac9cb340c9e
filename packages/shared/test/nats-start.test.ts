/**
 * A process that starts while NATS restarts (its supervisor started it then)
 * waits for the server, as long as a restart takes, instead of failing its
 * start; a caller that cannot wait (the health check) fails at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { freePort, startNats } from "../../../scripts/lib/infra";
import { loadConfig } from "../src/config";
import { connectNats } from "../src/service";

const dataDir = mkdtempSync(join(tmpdir(), "teamchat-nats-start-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("a starting process waits for NATS to come up; a health check does not", async () => {
  const port = await freePort();
  const config = loadConfig({ ...process.env, NATS_URL: `nats://127.0.0.1:${port}` });
  const warnings: string[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });

  await expect(connectNats(config, "healthcheck")).rejects.toThrow("connection refused");
  const starting = connectNats(config, "starting", log);
  await new Promise((r) => setTimeout(r, 1500));
  const nats = await startNats({ dataDir, port, progress: () => undefined });
  try {
    const nc = await starting;
    expect(nc.getServer()).toBe(`127.0.0.1:${port}`);
    await nc.close();
    // told once, not at every try
    expect(warnings).toEqual(["NATS refuses connections; trying again for up to 30 s"]);
  } finally {
    await nats.stop();
  }
}, 30_000);
