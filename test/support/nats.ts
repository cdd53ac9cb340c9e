import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { ensureDomainEventStream } from "@teamchat/shared";
import { connectDatabase, type Connection } from "@teamchat/shared/src/db";
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

/**
 * Per test: a private nats-server with the domain events' stream, and databases made on demand, all
 * removed by `stop()`. What the tests of event-fed copies stand on; a file calls `start()` in its
 * beforeEach and `stop()` in its afterEach, after stopping what it built on them.
 */
export class DomainEventsWorld {
  private nats: Awaited<ReturnType<typeof startTestNats>> | undefined;
  private connection: NatsConnection | undefined;
  private readonly databases: Connection[] = [];

  get nc(): NatsConnection {
    if (!this.connection) throw new Error("DomainEventsWorld.start() was not called");
    return this.connection;
  }

  async start(): Promise<void> {
    this.nats = await startTestNats();
    this.connection = await connect({ servers: this.nats.url });
    await ensureDomainEventStream(this.connection, { maxAgeSeconds: 3600, maxBytes: 8 * 1024 * 1024, replicas: 1 });
  }

  /** A new database, named `prefix` and a random suffix. */
  async database(prefix: string): Promise<Connection> {
    const db = await connectDatabase(process.env.TEST_MONGO_URL!, `${prefix}${randomBytes(4).toString("hex")}`);
    this.databases.push(db);
    return db;
  }

  async stop(): Promise<void> {
    for (const db of this.databases.splice(0)) {
      await db.dropDatabase();
      await db.close();
    }
    await this.connection?.close();
    await this.nats?.stop();
    this.connection = this.nats = undefined;
  }
}
