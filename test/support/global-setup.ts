/**
 * Once per `jest` run:
 * - a MongoDB-protocol server for all test files. Docker engine answering →
 *   MongoDB from testcontainers; otherwise the same local provisioning as
 *   `npm start`, with the database in memory and PostgreSQL for search
 *   (SEARCH_URL: one already running).
 * - the shared system: one nats-server and the whole system in this process
 *   (test/support/system.ts), on which each test file creates its own
 *   organizations (testOrganization()). Workers find it through TEST_BASE_URL,
 *   TEST_NATS_URL and TEST_MONGO_DB_PREFIX. Private systems (startSystem()) start their own
 *   nats-server per file, so that they never share subjects. TEST_NATS_CLUSTER=3
 *   TEST_INSTANCES=2 run it scaled: a NATS cluster (R3 streams), two instances of
 *   every service, the gateways behind the balancer of `npm start`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureNatsServer, startMongo, startPostgres } from "../../scripts/lib/infra";
import { dockerAvailable } from "./docker";
import { startTestNats } from "./nats";
import { launchSystem } from "./system";

declare global {
  var __teardown: (() => Promise<void>) | undefined;
}

/** Provisions the database; returns how to stop it. */
async function startDatabase(): Promise<() => Promise<void>> {
  if (process.env.MONGO_URL) {
    process.env.TEST_MONGO_URL = process.env.MONGO_URL;
    if (process.env.SEARCH_URL) process.env.TEST_SEARCH_URL = process.env.SEARCH_URL;
    return async () => undefined;
  }
  const progress = (line: string) => process.stderr.write(`\n${line}`);
  if (await dockerAvailable()) {
    const { MongoDBContainer } = await import("@testcontainers/mongodb");
    progress("[test] Docker engine found: starting mongo:7 with testcontainers...");
    const mongo = await new MongoDBContainer("mongo:7").start();
    process.env.TEST_MONGO_URL = `${mongo.getConnectionString()}?directConnection=true`;
    process.env.TEST_USE_DOCKER = "1";
    return async () => void (await mongo.stop());
  }
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-test-"));
  // Install nats-server now, so that files starting private systems do not race to apt-get.
  ensureNatsServer({ dataDir, progress });
  // TEST_MONGO_REPLICA_SET=1: the replica-set path (majority writes, transactions) instead of the single-server one
  const mongo = await startMongo({
    dataDir,
    progress,
    inMemory: true,
    replicaSet: process.env.TEST_MONGO_REPLICA_SET === "1",
  });
  process.env.TEST_MONGO_URL = mongo.url;
  // SecantusDB has no text index: search is PostgreSQL's, as `npm start` gives it
  const postgres = process.env.SEARCH_URL
    ? undefined
    : await startPostgres({ dataDir, progress, ephemeral: true }).catch(async (err: unknown) => {
        await mongo.stop();
        throw err;
      });
  process.env.TEST_SEARCH_URL = process.env.SEARCH_URL ?? postgres!.url;
  return async () => {
    await Promise.all([mongo.stop(), postgres?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  };
}

export default async function globalSetup(): Promise<void> {
  const stopDatabase = await startDatabase();
  globalThis.__teardown = stopDatabase;
  // TEST_NATS_CLUSTER / TEST_INSTANCES: the shared system scaled as `npm start -- --nats-cluster K --instances N`
  const natsNodes = Number(process.env.TEST_NATS_CLUSTER || 1);
  const nats = await startTestNats(natsNodes);
  let system: Awaited<ReturnType<typeof launchSystem>>;
  try {
    // Many files share it at once: no rate limit that tests could hit by accident.
    system = await launchSystem(nats.url, {
      env: { RATE_LIMIT_REQUESTS: "10000", NATS_STREAM_REPLICAS: String(natsNodes) },
      instances: Number(process.env.TEST_INSTANCES || 1),
    });
  } catch (err) {
    // jest runs no teardown when the setup fails: stop the servers here, or they outlive the run.
    await nats.stop();
    await stopDatabase();
    throw err;
  }
  process.env.TEST_BASE_URL = system.baseUrl;
  process.env.TEST_NATS_URL = nats.url;
  process.env.TEST_MONGO_DB_PREFIX = system.config.MONGO_DB_PREFIX;
  process.env.TEST_INVITATION_MAIL_DIR = system.config.INVITATION_MAIL_DIR;
  globalThis.__teardown = async () => {
    await system.stop();
    await nats.stop();
    await stopDatabase();
  };
}
