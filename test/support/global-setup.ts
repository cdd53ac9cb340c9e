/**
 * Once per `jest` run: a MongoDB-protocol server for all test files (each file
 * uses its own databases). Docker engine answering → MongoDB from
 * testcontainers; otherwise the same local provisioning as `npm start`, with
 * the database in memory (a temporary directory, removed afterwards, for mongod). NATS is started per test file (test/support/nats.ts) so that files
 * running in parallel never share subjects.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureNatsServer, startMongo } from "../../scripts/lib/infra";
import { dockerAvailable } from "./docker";

declare global {
  var __teardown: (() => Promise<void>) | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (process.env.MONGO_URL) {
    process.env.TEST_MONGO_URL = process.env.MONGO_URL;
    return;
  }
  const progress = (line: string) => process.stderr.write(`\n${line}`);
  if (await dockerAvailable()) {
    const { MongoDBContainer } = await import("@testcontainers/mongodb");
    progress("[test] Docker engine found: starting mongo:7 with testcontainers...");
    const mongo = await new MongoDBContainer("mongo:7").start();
    process.env.TEST_MONGO_URL = `${mongo.getConnectionString()}?directConnection=true`;
    process.env.TEST_USE_DOCKER = "1";
    globalThis.__teardown = async () => void (await mongo.stop());
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-test-"));
  // nats-server is started per file, but install it now so that files do not race to apt-get.
  ensureNatsServer({ dataDir, progress });
  const mongo = await startMongo({ dataDir, progress, inMemory: true });
  process.env.TEST_MONGO_URL = mongo.url;
  globalThis.__teardown = async () => {
    await mongo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
