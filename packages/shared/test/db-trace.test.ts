/**
 * LOG_LEVEL=trace logs every database command with its duration and its shape, which holds no
 * value of the documents (they may be anyone's messages or keys); any other level logs none. At
 * every level, each command counts to the bus request that awaited it (its slow-request line).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { startMongo, type StartedServer } from "../../../scripts/lib/infra";
import { connectDatabase } from "../src/db";
import { createLogger } from "../src/logger";
import { ServiceMetrics } from "../src/metrics";
import { withRequestScope, type DbTime } from "../src/request-scope";

let server: StartedServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "teamchat-db-trace-"));
  server = await startMongo({ dataDir, inMemory: true, progress: () => undefined });
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs an insert and a find at `level`; the lines logged meanwhile. */
async function logged(level: string): Promise<Array<Record<string, unknown>>> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  const log = createLogger("db-trace-test", level, sink);
  const conn = await connectDatabase(server.url, "dbtrace", new ServiceMetrics("db-trace-test", false), log);
  try {
    const notes = conn.collection("notes");
    await notes.insertOne({ realmId: 1, text: "a secret text" });
    await notes.find({ realmId: 1, text: { $in: ["a secret text", "another"] } }).toArray();
  } finally {
    await conn.close();
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === "database command");
}

it("at trace, logs each command's collection, duration and shape, with no value in it", async () => {
  const lines = await logged("trace");
  const find = lines.find((l) => (l.db as { command: string }).command === "find");
  expect(find?.db).toEqual({
    command: "find",
    collection: "notes",
    ms: expect.any(Number),
    shape: { find: "string", filter: { realmId: "number", text: { $in: [2, "string"] } } },
  });
  expect(lines.some((l) => (l.db as { command: string }).command === "insert")).toBe(true);
  expect(JSON.stringify(lines)).not.toContain("secret");
});

it("at debug, logs none", async () => {
  expect(await logged("debug")).toEqual([]);
});

it("counts each command to the request that awaited it, among requests served side by side", async () => {
  const conn = await connectDatabase(server.url, "dbtime", new ServiceMetrics("db-time-test", false));
  try {
    const notes = conn.collection("notes");
    const first: DbTime = { ms: 0, commands: 0 };
    const second: DbTime = { ms: 0, commands: 0 };
    await Promise.all([
      withRequestScope(first, async () => {
        await notes.insertOne({ realmId: 1, n: 1 });
        await notes.find({ realmId: 1 }).toArray();
        await notes.countDocuments({ realmId: 1 });
      }),
      withRequestScope(second, async () => {
        await notes.findOne({ realmId: 2 });
      }),
    ]);
    // outside any request: counted to none
    await notes.findOne({ realmId: 1 });
    expect(first).toMatchObject({ commands: 3, slowest: { collection: "notes" } });
    expect(["insert", "find", "aggregate"]).toContain(first.slowest!.command);
    expect(first.ms).toBeGreaterThanOrEqual(first.slowest!.ms);
    expect(second).toMatchObject({ commands: 1, slowest: { command: "find", collection: "notes" } });
  } finally {
    await conn.close();
  }
});
