/**
 * Safe retries of POST /messages: a send retried with the same Idempotency-Key
 * header, or the same local echo pair (queue_id + local_id) Zulip's clients send,
 * posts once and answers the first send's id; and the local echo itself (the
 * sending queue's message event carries local_message_id).
 */
import { messaging, type ParamsIn } from "@teamchat/shared";
import { ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, withMessagingDatabase } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  await createChannel(org, alice, "retries", [alice.userId, bob.userId]);
});
afterAll(() => org?.stop());

type SendParams = ParamsIn<typeof messaging.sendMessage>;

/** POST /messages with an Idempotency-Key header. */
const sendWithKey = (user: Credentials, key: string, params: SendParams) =>
  org.api(user).request("POST", "/messages", params as Record<string, unknown>, "form", { "idempotency-key": key });

/** The ids of the messages in topic `topic` of "retries", as bob reads them. */
const topicMessageIds = async (topic: string) =>
  (
    await org.call(
      messaging.getMessages,
      {
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: "retries" },
          { operator: "topic", operand: topic },
        ],
      },
      bob,
    )
  ).messages.map((m) => m.id);

const toTopic = (topic: string, content: string): SendParams => ({ type: "stream", to: "retries", topic, content });

describe("POST /messages retried with the same Idempotency-Key", () => {
  it("posts once: the retry answers the first message's id", async () => {
    const first = ok(await sendWithKey(alice, "k-1", toTopic("header", "once")));
    const retry = ok(await sendWithKey(alice, "k-1", toTopic("header", "once")));
    expect(retry).toEqual({ result: "success", msg: "", id: first.id });
    expect(await topicMessageIds("header")).toEqual([first.id]);
    // another key is another message
    const other = ok(await sendWithKey(alice, "k-2", toTopic("header", "twice")));
    expect(other.id).not.toBe(first.id);
    expect(await topicMessageIds("header")).toEqual([first.id, other.id]);
  });

  it("keys are the sender's own: another user's send with the same key posts", async () => {
    const alices = ok(await sendWithKey(alice, "shared-key", toTopic("per-sender", "from alice")));
    const bobs = ok(await sendWithKey(bob, "shared-key", toTopic("per-sender", "from bob")));
    expect(bobs.id).not.toBe(alices.id);
    expect(await topicMessageIds("per-sender")).toEqual([alices.id, bobs.id]);
  });

  it("concurrent attempts with one key post one message and all answer its id", async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => sendWithKey(alice, "racing", toTopic("race", "just one"))),
    );
    const ids = replies.map((r) => ok(r).id as number);
    expect(new Set(ids).size).toBe(1);
    expect(await topicMessageIds("race")).toEqual([ids[0]]);
  });

  it("a refused send leaves nothing behind: its retry, corrected, posts", async () => {
    const refused = await sendWithKey(alice, "fix-me", {
      type: "stream",
      to: "no such channel",
      topic: "t",
      content: "x",
    });
    await expectZulipError(refused, {
      ...badRequestError("Channel 'no such channel' does not exist", "STREAM_DOES_NOT_EXIST"),
      stream: "no such channel",
    });
    const posted = ok(await sendWithKey(alice, "fix-me", toTopic("corrected", "now right")));
    expect(await topicMessageIds("corrected")).toEqual([posted.id]);
  });

  // what an instance leaves when it dies between claiming a key and posting (claimedBy: which instance, when known)
  const claimLeftAt = (key: string, claimedAt: Date, claimedBy?: string) =>
    withMessagingDatabase((db) =>
      db.collection("sendreceipts").insertOne({
        realmId: org.realm.id,
        senderId: alice.userId,
        key: `header:${key}`,
        messageId: null,
        claimedAt,
        ...(claimedBy && { claimedBy }),
      }),
    );

  it("waits for an attempt still sending, and takes over one whose instance died a minute ago", async () => {
    await claimLeftAt("in-flight", new Date());
    // a retry while the first attempt may still post: after waiting for it, a clear refusal and nothing posted
    await expectZulipError(sendWithKey(alice, "in-flight", toTopic("in-flight", "x")), {
      status: 409,
      code: "BAD_REQUEST",
      msg: "A message with this key is still being sent; retry later.",
    });
    expect(await topicMessageIds("in-flight")).toEqual([]);

    await claimLeftAt("orphaned", new Date(Date.now() - 61_000));
    const posted = ok(await sendWithKey(alice, "orphaned", toTopic("orphaned", "sent at last")));
    expect(ok(await sendWithKey(alice, "orphaned", toTopic("orphaned", "sent at last"))).id).toBe(posted.id);
    expect(await topicMessageIds("orphaned")).toEqual([posted.id]);
  });

  it("takes over at once the claim of an instance gone from the bus, and waits for one still there", async () => {
    await claimLeftAt("instance-killed", new Date(), "an-instance-that-was-killed");
    const posted = ok(await sendWithKey(alice, "instance-killed", toTopic("instance-killed", "sent by the retry")));
    expect(await topicMessageIds("instance-killed")).toEqual([posted.id]);

    // an instance still on the bus, busy with its send
    const alive = org.nc.subscribe("messaging.instance.an-instance-still-sending", {
      callback: (_err, msg) => void msg.respond(),
    });
    await org.nc.flush();
    await claimLeftAt("instance-alive", new Date(), "an-instance-still-sending");
    await expectZulipError(sendWithKey(alice, "instance-alive", toTopic("instance-alive", "x")), {
      status: 409,
      code: "BAD_REQUEST",
      msg: "A message with this key is still being sent; retry later.",
    });
    alive.unsubscribe();
    expect(await topicMessageIds("instance-alive")).toEqual([]);
  });

  it("a retry after an attempt that stored the message but failed to deliver it finishes, without a second copy", async () => {
    const receiver = await EventReader.register(org.api(bob), { event_types: ["message"] });
    const first = ok(await sendWithKey(alice, "half-done", toTopic("half-done", "stored once")));
    // what an attempt leaves when it fails after storing (e.g. the event stream was out of reach)
    await withMessagingDatabase((db) =>
      db
        .collection("sendreceipts")
        .updateOne(
          { realmId: org.realm.id, senderId: alice.userId, key: "header:half-done" },
          { $set: { delivered: false, gaveUp: true } },
        ),
    );
    const retry = ok(await sendWithKey(alice, "half-done", toTopic("half-done", "stored once")));
    expect(retry.id).toBe(first.id);
    expect(await topicMessageIds("half-done")).toEqual([first.id]);
    // the delivery ran again: bob's row is the one he had, and his queue holds the event once
    const fetched = await org.call(messaging.getMessage, { message_id: first.id as number }, bob);
    expect(fetched.message.flags).toEqual([]);
    await receiver.until((events) => events.some((e) => e.type === "message"));
    const marker = ok(await sendWithKey(alice, "after-half-done", toTopic("half-done", "later")));
    await receiver.until((events) =>
      events.some((e) => e.type === "message" && (e.message as { id: number }).id === marker.id),
    );
    expect(receiver.ofType("message").map((e) => (e.message as { id: number }).id)).toEqual([first.id, marker.id]);
    // and the receipt is complete: one more retry answers at once
    expect(ok(await sendWithKey(alice, "half-done", toTopic("half-done", "stored once"))).id).toBe(first.id);
  });

  it("a retry after an attempt whose store was not confirmed finds the message instead of posting it again", async () => {
    const first = ok(await sendWithKey(alice, "unconfirmed", toTopic("unconfirmed", "written once")));
    // what an attempt leaves when the database wrote the message but the connection dropped before saying so
    await withMessagingDatabase((db) =>
      db
        .collection("sendreceipts")
        .updateOne(
          { realmId: org.realm.id, senderId: alice.userId, key: "header:unconfirmed" },
          { $set: { messageId: null, delivered: false, gaveUp: true } },
        ),
    );
    const retry = ok(await sendWithKey(alice, "unconfirmed", toTopic("unconfirmed", "written once")));
    expect(retry.id).toBe(first.id);
    expect(await topicMessageIds("unconfirmed")).toEqual([first.id]);
  });

  it("refuses a key longer than 255 characters, posting nothing", async () => {
    const reply = await sendWithKey(alice, "k".repeat(256), toTopic("too-long", "x"));
    await expectZulipError(reply, badRequestError("idempotency_key is too long (limit: 255 characters)"));
    expect(await topicMessageIds("too-long")).toEqual([]);
  });
});

describe("POST /messages with Zulip's local echo pair (queue_id, local_id)", () => {
  it("tells the sending queue local_message_id; a retry of the pair posts once", async () => {
    const sending = await EventReader.register(org.api(alice), { event_types: ["message"] });
    const otherTab = await EventReader.register(org.api(alice), { event_types: ["message"] });
    const receiver = await EventReader.register(org.api(bob), { event_types: ["message"] });
    const params = { ...toTopic("echo", "echoed"), queue_id: sending.queueId, local_id: "100.01" };
    const { id } = await org.call(messaging.sendMessage, params, alice);
    expect((await org.call(messaging.sendMessage, params, alice)).id).toBe(id);
    expect(await topicMessageIds("echo")).toEqual([id]);

    const messageEvent = (reader: EventReader) =>
      reader.until((events) => events.some((e) => e.type === "message")).then(() => reader.ofType("message"));
    const [fromSending, fromOtherTab, fromReceiver] = await Promise.all(
      [sending, otherTab, receiver].map(messageEvent),
    );
    expect(fromSending).toEqual([expect.objectContaining({ local_message_id: "100.01", flags: ["read"] })]);
    expect(fromSending[0]!.message).toMatchObject({ id });
    // only the queue that sent it: Zulip's other clients add the message as new
    expect(fromOtherTab[0]).not.toHaveProperty("local_message_id");
    expect(fromReceiver[0]).not.toHaveProperty("local_message_id");

    // the same local_id from another queue is another send
    const fromOther = { ...toTopic("echo", "echoed"), queue_id: otherTab.queueId, local_id: "100.01" };
    expect((await org.call(messaging.sendMessage, fromOther, alice)).id).not.toBe(id);
  });
});
