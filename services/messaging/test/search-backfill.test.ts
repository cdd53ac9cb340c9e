/**
 * A deployment that had a history when search came: messaging's next start
 * adds the stored messages to the search index in the background, once.
 */
import { messaging } from "@teamchat/shared";
import { Client } from "pg";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let sys: TestSystem;
let alice: TestUser;
beforeAll(async () => {
  sys = await startSystem();
  alice = await sys.makeUser("Alice", 400, "Alice");
  await createChannel(sys, alice, "archive", [alice.userId]);
});
afterAll(() => sys?.stop());

const found = async (operand: string) =>
  (
    await sys.call(
      messaging.getMessages,
      { narrow: [{ operator: "search", operand }], anchor: "newest", num_before: 10, num_after: 0 },
      alice,
    )
  ).messages.map((m) => m.id);

/** Runs SQL on this system's search schema. */
async function searchDatabase(sql: string, params: unknown[] = []): Promise<void> {
  const client = new Client({ connectionString: process.env.TEST_SEARCH_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${sys.config.MONGO_DB_PREFIX}_messaging"`);
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

it("indexes the messages stored before the index, on the next start, in the background", async () => {
  const old = await sys.call(
    messaging.sendMessage,
    { type: "stream", to: "archive", topic: "t", content: "an ancient manuscript" },
    alice,
  );
  // as if stored before search existed: not in the index, which is to add everything up to it
  await searchDatabase("DELETE FROM messages");
  await searchDatabase("UPDATE backfill SET below = $1", [old.id + 1]);
  expect(await found("manuscript")).toEqual([]);

  await sys.stopService("messaging");
  await sys.startService("messaging");
  const deadline = Date.now() + 20_000;
  while ((await found("manuscripts")).length === 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(await found("manuscripts")).toEqual([old.id]);

  // done once: a later start adds nothing again
  await searchDatabase("DELETE FROM messages");
  await sys.stopService("messaging");
  await sys.startService("messaging");
  await new Promise((r) => setTimeout(r, 500));
  expect(await found("manuscript")).toEqual([]);
});
