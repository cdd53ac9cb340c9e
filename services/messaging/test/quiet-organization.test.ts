/**
 * Message ids come from one counter over every organization: an organization
 * that has been quiet while others sent many messages finds its own far below
 * the newest id. Reads walking down from the newest id (the newest page of a
 * user's history, a sender's messages, a register's max_message_id) still
 * find exactly its messages.
 */
import { messaging, notifications } from "@teamchat/shared";
import * as mongo from "mongodb";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

/** Ids given out to other organizations after this one's messages. */
const OTHERS = 100_000;

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  sys = await startSystem();
  alice = await sys.makeUser("Alice", 400, "Alice");
  bob = await sys.makeUser("Bob", 400, "Bob");
  await createChannel(sys, alice, "quiet", [alice.userId, bob.userId]);
});
afterAll(() => sys?.stop());

const send = async (user: TestUser, content: string) =>
  (await sys.call(messaging.sendMessage, { type: "stream", to: "quiet", topic: "t", content }, user)).id;
const newest = async (
  user: TestUser,
  narrow: Array<{ operator: string; operand: string | number; negated?: boolean }>,
  n: number,
) =>
  (await sys.call(messaging.getMessages, { anchor: "newest", num_before: n, num_after: 0, narrow }, user)).messages.map(
    (m) => m.id,
  );

it("finds a quiet organization's messages below the ids others took since", async () => {
  const bobs = [await send(bob, "one"), await send(bob, "two"), await send(bob, "three")];
  // more of Alice's than the first read after the gap takes
  const alices: number[] = [];
  for (let i = 0; i < 80; i++) alices.push(await send(alice, `alice ${i}`));
  const client = await mongo.MongoClient.connect(sys.config.MONGO_URL!);
  try {
    await client
      .db(`${sys.config.MONGO_DB_PREFIX}_messaging`)
      .collection<{ _id: string; seq: number }>("counters")
      .updateOne({ _id: "message" }, { $inc: { seq: OTHERS } });
  } finally {
    await client.close();
  }
  // after a restart, so that nothing is served from what the service kept in memory
  await sys.stopService("messaging");
  await sys.startService("messaging");

  expect(await newest(bob, [], 5)).toEqual(alices.slice(-5));
  // the newest not by Alice are three rows below the nearest ones read after the gap
  expect(await newest(bob, [{ operator: "sender", operand: alice.userId, negated: true }], 3)).toEqual(bobs);
  expect(await newest(bob, [{ operator: "sender", operand: bob.userId }], 5)).toEqual(bobs);
  const registered = (await sys.call(
    notifications.registerQueue,
    { fetch_event_types: ["message"] },
    bob,
  )) as unknown as {
    max_message_id: number;
  };
  expect(registered.max_message_id).toBe(alices.at(-1));
});
