/**
 * A deployment whose messages were stored before has:link, has:image and
 * has:attachment were kept: messaging's next start gives them their features
 * in one pass, once, and has: narrows find them.
 */
import { messaging } from "@teamchat/shared";
import * as mongo from "mongodb";
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

const linked = async () =>
  (
    await sys.call(
      messaging.getMessages,
      { narrow: [{ operator: "has", operand: "link" }], anchor: "newest", num_before: 10, num_after: 0 },
      alice,
    )
  ).messages.map((m) => m.id);

async function withDatabase<T>(use: (db: mongo.Db) => Promise<T>): Promise<T> {
  const client = await mongo.MongoClient.connect(sys.config.MONGO_URL!);
  try {
    return await use(client.db(`${sys.config.MONGO_DB_PREFIX}_messaging`));
  } finally {
    await client.close();
  }
}

it("gives the messages stored before their features were kept those features on the next start, once", async () => {
  const old = await sys.call(
    messaging.sendMessage,
    { type: "stream", to: "archive", topic: "t", content: "see https://example.com/old" },
    alice,
  );
  // as if stored before the features were kept, and the backfill never ran
  await withDatabase(async (db) => {
    await db
      .collection("messages")
      .updateOne({ messageId: old.id }, { $unset: { hasLink: "", hasImage: "", hasAttachment: "" } });
    await db.collection("message_backfills").deleteMany({});
  });
  expect(await linked()).toEqual([]);

  await sys.stopService("messaging");
  await sys.startService("messaging");
  expect(await linked()).toEqual([old.id]);
  const stored = await withDatabase((db) => db.collection("messages").findOne({ messageId: old.id }));
  expect(stored).toMatchObject({ hasLink: true, hasImage: false, hasAttachment: false });
});
