/**
 * DELETE /messages/{message_id} (Zulip's delete_message_backend) and
 * POST /streams/{stream_id}/delete_topic (delete_in_topic): who may delete,
 * the time limit, the delete_message events, and what follows the deleted
 * messages (topics, the channel's first message, direct conversations).
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { backdateMessages, createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, mod: TestUser, admin: TestUser, guest: TestUser;
let design: number, secret: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  mod = await org.makeUser("Mod", 300, "Mod");
  admin = await org.makeUser("Admin", 200, "Admin");
  guest = await org.makeUser("Guest", 600, "Guest");
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId, mod.userId, guest.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId, bob.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
const toDesign = (topic: string, content: string, user: Credentials = alice) =>
  send(user, { type: "stream", to: "design", topic, content });
const remove = (user: Credentials, id: number) => org.call(messaging.deleteMessage, { message_id: id }, user);
const exists = async (id: number) =>
  (await org.call(messaging.getMessages, { message_ids: [id], narrow: [] }, alice)).messages.length === 1;
const topicNames = async (streamId: number) =>
  (await org.call(messaging.getStreamTopics, { stream_id: streamId }, alice)).topics;
const deleteTopic = (user: Credentials, streamId: number, topic: string) =>
  org.call(messaging.deleteTopic, { stream_id: streamId, topic_name: topic }, user);

describe("DELETE /messages/{message_id}", () => {
  it("lets the sender delete their message; everyone who had it hears delete_message", async () => {
    const keep = await toDesign("cleanup", "keep");
    const id = await toDesign("cleanup", "delete me");
    const bulk = await EventReader.register(org.api(bob), {
      event_types: ["delete_message"],
      client_capabilities: { bulk_message_deletion: true },
    });
    const legacy = await EventReader.register(org.api(mod), { event_types: ["delete_message"] });
    expect(await remove(alice, id)).toEqual({ result: "success", msg: "" });
    expect(await exists(id)).toBe(false);
    await expectZulipError(remove(alice, id), badRequestError("Invalid message(s)"));

    const [forBulk] = await bulk.until((es) => es.length === 1);
    expect(forBulk).toEqual({
      id: expect.any(Number),
      type: "delete_message",
      message_ids: [id],
      message_type: "stream",
      stream_id: design,
      topic: "cleanup",
    });
    const [forLegacy] = await legacy.until((es) => es.length === 1);
    expect(forLegacy).toEqual({
      id: expect.any(Number),
      type: "delete_message",
      message_id: id,
      message_type: "stream",
      stream_id: design,
      topic: "cleanup",
    });
    // the topic's newest message is the one left
    expect((await topicNames(design)).find((t) => t.name === "cleanup")).toEqual({ name: "cleanup", max_id: keep });
    // an unread deleted message is no longer unread
    const reg = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["message", "update_message_flags"] },
      bob,
    )) as unknown as { unread_msgs: { count: number; streams: Array<{ unread_message_ids: number[] }> } };
    expect(reg.unread_msgs.streams.flatMap((s) => s.unread_message_ids)).not.toContain(id);
  });

  it("refuses others' messages to members; administrators delete any message", async () => {
    const id = await toDesign("perm", "alice's");
    const denied = badRequestError("You don't have permission to delete this message");
    await expectZulipError(remove(bob, id), denied);
    await expectZulipError(remove(mod, id), denied);
    expect(await exists(id)).toBe(true);
    await remove(admin, id);
    expect(await exists(id)).toBe(false);
  });

  it("allows the sender only within the organization's limit (600 s); administrators any time", async () => {
    const [early, late] = [await toDesign("time", "early"), await toDesign("time", "late")];
    await backdateMessages(org, [early, late], 601);
    await expectZulipError(
      remove(alice, early),
      badRequestError("The time limit for deleting this message has passed"),
    );
    expect(await exists(early)).toBe(true);
    await remove(admin, late);
    expect(await exists(late)).toBe(false);
  });

  it("refuses messages the caller cannot see", async () => {
    const hidden = await send(alice, { type: "stream", to: secret, topic: "t", content: "x" });
    await expectZulipError(remove(guest, hidden), badRequestError("Invalid message(s)"));
    await expectZulipError(remove(admin, 999_999_999), badRequestError("Invalid message(s)"));
  });

  it("direct messages: the conversation's newest message follows", async () => {
    const first = await send(alice, { type: "direct", to: [bob.userId], content: "one" });
    const second = await send(alice, { type: "direct", to: [bob.userId], content: "two" });
    const events = await EventReader.register(org.api(bob), {
      event_types: ["delete_message"],
      client_capabilities: { bulk_message_deletion: true },
    });
    await remove(alice, second);
    const [event] = await events.until((es) => es.length === 1);
    expect(event).toEqual({
      id: expect.any(Number),
      type: "delete_message",
      message_ids: [second],
      message_type: "private",
    });
    const recent = async () =>
      (
        (await org.call(
          notifications.registerQueue,
          { fetch_event_types: ["recent_private_conversations"] },
          bob,
        )) as unknown as { recent_private_conversations: Array<{ max_message_id: number; user_ids: number[] }> }
      ).recent_private_conversations;
    expect(await recent()).toContainEqual({ max_message_id: first, user_ids: [alice.userId] });
    await remove(alice, first);
    expect((await recent()).some((c) => c.user_ids.includes(alice.userId))).toBe(false);
  });

  it("deleting a channel's first message moves first_message_id, told with a stream update event", async () => {
    const fresh = await createChannel(org, alice, "fresh", [alice.userId, bob.userId]);
    // the first message is Notification Bot's "channel events" one
    const first = (await org.call(messaging.getStreamById, { stream_id: fresh }, alice)).stream.first_message_id!;
    const second = await send(alice, { type: "stream", to: fresh, topic: "t", content: "1" });
    const events = await EventReader.register(org.api(bob), { event_types: ["stream"] });
    await remove(admin, first);
    expect(await events.until((es) => es.length === 1)).toEqual([
      {
        id: expect.any(Number),
        type: "stream",
        op: "update",
        stream_id: fresh,
        name: "fresh",
        property: "first_message_id",
        value: second,
      },
    ]);
  });
});

describe("POST /streams/{stream_id}/delete_topic", () => {
  it("is for administrators: others get UNAUTHORIZED_PRINCIPAL and nothing is deleted", async () => {
    const id = await toDesign("protected", "x");
    for (const user of [alice, mod]) {
      await expectZulipError(
        deleteTopic(user, design, "protected"),
        badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL"),
      );
    }
    expect(await exists(id)).toBe(true);
  });

  it("deletes every message of the topic (its name in any case) and the topic with them", async () => {
    const ids = [await toDesign("Doomed", "a"), await toDesign("doomed", "b", bob), await toDesign("other", "c")];
    const events = await EventReader.register(org.api(bob), {
      event_types: ["delete_message"],
      client_capabilities: { bulk_message_deletion: true },
    });
    expect(await deleteTopic(admin, design, "DOOMED")).toEqual({ result: "success", msg: "", complete: true });
    expect(await Promise.all(ids.map(exists))).toEqual([false, false, true]);
    expect((await topicNames(design)).some((t) => t.name.toLowerCase() === "doomed")).toBe(false);
    const [event] = await events.until((es) => es.length === 1);
    // one batch, newest first, named as its newest message spells the topic
    expect(event).toMatchObject({ type: "delete_message", message_ids: [ids[1], ids[0]], topic: "doomed" });
    // nothing left: still complete
    expect((await deleteTopic(admin, design, "doomed")).complete).toBe(true);
    await expectZulipError(deleteTopic(admin, 999_999, "x"), badRequestError("Invalid channel ID"));
  });

  it("needs content access: an administrator not subscribed to a private channel is told it does not exist", async () => {
    // Zulip's access_stream_by_id: administrators have only metadata access to such a channel
    const id = await send(alice, { type: "stream", to: secret, topic: "hidden", content: "x" });
    await expectZulipError(deleteTopic(admin, secret, "hidden"), badRequestError("Invalid channel ID"));
    expect(await exists(id)).toBe(true);
  });
});

describe("delete_topic's time budget", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // no time for more than one batch of 100 per request
    sys = await startSystem({ env: { DELETE_TOPIC_TIME_BUDGET_SECONDS: "0" } });
  });
  afterAll(() => sys?.stop());

  it("keeps what it deleted, newest first, and answers complete=false until the topic is gone", async () => {
    const user = await sys.makeUser("poster");
    const { id: channel } = await sys.call(
      messaging.createChannel,
      { name: "big", subscribers: [user.userId] },
      sys.owner,
    );
    const ids: number[] = [];
    for (let i = 0; i < 130; i++) {
      ids.push(
        (await sys.call(messaging.sendMessage, { type: "stream", to: channel, topic: "t", content: `${i}` }, user)).id,
      );
    }
    const left = async () =>
      (
        await sys.call(
          messaging.getMessages,
          {
            anchor: "newest",
            num_before: 200,
            num_after: 0,
            narrow: [
              { operator: "channel", operand: "big" },
              { operator: "topic", operand: "t" },
            ],
          },
          sys.owner,
        )
      ).messages.map((m) => m.id);
    expect((await sys.call(messaging.deleteTopic, { stream_id: channel, topic_name: "t" }, sys.owner)).complete).toBe(
      false,
    );
    expect(await left()).toEqual(ids.slice(0, 30));
    expect((await sys.call(messaging.deleteTopic, { stream_id: channel, topic_name: "t" }, sys.owner)).complete).toBe(
      true,
    );
    expect(await left()).toEqual([]);
  });
});
