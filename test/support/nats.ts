import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNats, startNatsCluster } from "../../scripts/lib/infra";

/**
 * A nats-server with JetStream for one test file: a container under Docker,
 * else a local process; `nodes` > 1: a cluster of local processes (its URL
 * lists every node).
 */
export async function startTestNats(nodes = 1): Promise<{ url: string; stop(): Promise<void> }> {
  if (nodes > 1) {
    const dataDir = mkdtempSync(join(tmpdir(), "teamchat-nats-"));
    const cluster = await startNatsCluster({ dataDir, nodes, progress: () => undefined });
    return {
      url: cluster.url,
      stop: async () => {
        await cluster.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
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
