/**
 * Multi-document changes that fail after their first write (a validator makes
 * the database refuse a later one). On a replica set each is one transaction:
 * nothing of it stays. On a single server the writes before the failure stay:
 * a keyed send's retry finishes it, a move stays half done (its topic list)
 * until the topic's next message. The harness's database
 * decides which path runs (TEST_MONGO_REPLICA_SET=1 for the replica set).
 */
import { messaging, writeSafetyOf } from "@teamchat/shared";
import { ok } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { SEND_RECEIPT_LIFETIME_SECONDS } from "../src/send-receipts/send-receipt.schema";
import { createChannel, withMessagingDatabase } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let carol: TestUser;
let transactions: boolean;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  carol = await org.makeUser("Carol", 400, "Carol");
  transactions = await withMessagingDatabase(
    async (db) => writeSafetyOf(await db.admin().command({ hello: 1 })).transactions,
  );
});
afterAll(() => org?.stop());

/** Makes messaging's database refuse this organization's documents of `collection` matching `refused` during `work`. */
async function refusing<T>(collection: string, refused: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  const validator = (on: boolean) =>
    withMessagingDatabase((db) =>
      db.command({
        collMod: collection,
        validator: on ? { $or: [{ realmId: { $ne: org.realm.id } }, { $nor: [refused] }] } : {},
      }),
    );
  await validator(true);
  try {
    return await work();
  } finally {
    await validator(false);
  }
}

const sendToCarol = () =>
  org
    .api(alice)
    .request("POST", "/messages", { type: "direct", to: JSON.stringify([carol.userId]), content: "hello" }, "form", {
      "idempotency-key": "refused-row",
    });

/** What MongoDB's TTL monitor (every 60 s) may do at any moment: drop the receipts past their lifetime. */
const sweepReceipts = () =>
  withMessagingDatabase((db) =>
    db
      .collection("sendreceipts")
      .deleteMany({ claimedAt: { $lt: new Date(Date.now() - SEND_RECEIPT_LIFETIME_SECONDS * 1000) } }),
  );

const conversationIds = async (reader: TestUser, other: TestUser) =>
  (
    await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "dm", operand: [other.userId] }] },
      reader,
    )
  ).messages.map((m) => m.id);

it("a send whose rows cannot all be stored: nothing posted in a transaction, finished by its retry otherwise", async () => {
  const failed = await refusing("usermessages", { userId: carol.userId }, sendToCarol);
  expect(failed.status).toBe(500);
  const halfDone = await conversationIds(alice, carol);
  if (transactions) expect(halfDone).toEqual([]);
  else expect(halfDone).toHaveLength(1);
  // a direct message is read by its conversation: carol sees it too, without her row
  expect(await conversationIds(carol, alice)).toEqual(halfDone);

  await sweepReceipts();
  const retry = ok(await sendToCarol());
  expect(await conversationIds(alice, carol)).toEqual([retry.id]);
  expect(await conversationIds(carol, alice)).toEqual([retry.id]);
  if (!transactions) expect(retry.id).toBe(halfDone[0]);
});

it("a topic move whose new topic cannot be noted: nothing moved in a transaction, half done otherwise", async () => {
  const streamId = await createChannel(org, alice, "moves", [alice.userId, carol.userId]);
  const sent = ok(
    await org.api(alice).request("POST", "/messages", { type: "stream", to: "moves", topic: "old", content: "x" }),
  );
  const move = () =>
    org.api(alice).request("PATCH", `/messages/${sent.id}`, { topic: "new", propagate_mode: "change_all" });
  const topicOf = async () =>
    (await org.call(messaging.getMessage, { message_id: sent.id as number }, carol)).message.subject;
  const topicNames = async () =>
    (await org.call(messaging.getStreamTopics, { stream_id: streamId }, alice)).topics
      .map((t) => t.name)
      .filter((name) => name === "old" || name === "new");

  const failed = await refusing("topics", { name: "new" }, move);
  expect(failed.status).toBe(500);
  if (transactions) {
    expect(await topicOf()).toBe("old");
    expect(await topicNames()).toEqual(["old"]);
  } else {
    // half done: the message moved and the emptied old topic dropped, the new one missing from the list
    expect(await topicOf()).toBe("new");
    expect(await topicNames()).toEqual([]);
  }

  if (transactions) ok(await move());
  else {
    // the gap a single server leaves: the move cannot be done again, and the new topic is listed at its next message
    await expectZulipError(await move(), badRequestError("Nothing to change"));
    ok(await org.api(alice).request("POST", "/messages", { type: "stream", to: "moves", topic: "new", content: "y" }));
  }
  expect(await topicOf()).toBe("new");
  expect(await topicNames()).toEqual(["new"]);
});
