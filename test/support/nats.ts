import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNats } from "../../scripts/lib/infra";

/** A nats-server with JetStream for one test file: a container under Docker, else a local process. */
export async function startTestNats(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.TEST_USE_DOCKER) {
    const { GenericContainer, Wait } = await import("testcontainers");
    const c = await new GenericContainer("nats:2.10")
      .withCommand(["-js"])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    return { url: `nats://${c.getHost()}:${c.getMappedPort(4222)}`, stop: async () => void (await c.stop()) };
  }
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-nats-"));
  const nats = await startNats({ dataDir, progress: () => undefined });
  return {
    url: nats.url,
    stop: async () => {
      await nats.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
