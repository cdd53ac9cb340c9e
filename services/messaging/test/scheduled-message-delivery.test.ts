/**
 * Delivery of scheduled messages (Zulip's deliver_scheduled_messages worker
 * and send_scheduled_message) with two messaging instances: each due message
 * is sent once, as its sender, through POST /messages' path; a message that
 * can no longer be sent is marked failed and its sender told; messages due
 * while no instance runs are sent at the next start. Waits on events only.
 */
import { identity, messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import type { TestUser } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { createChannel } from "./helpers";

let sys: TestSystem;
let alice: TestUser, bob: TestUser;
let design: number;
beforeAll(async () => {
  sys = await startSystem();
  alice = await sys.makeUser("Alice", 400, "Alice");
  bob = await sys.makeUser("Bob", 400, "Bob");
  design = await createChannel(sys, alice, "design", [alice.userId, bob.userId]);
  await sys.startService("messaging");
});
afterAll(() => sys?.stop());

/** A moment a couple of seconds ahead: soon enough to wait for, late enough to be in the future when it arrives. */
const soon = () => Math.floor(Date.now() / 1000) + 2;
const schedule = async (params: ParamsIn<typeof messaging.createScheduledMessage>, user = alice) =>
  (await sys.call(messaging.createScheduledMessage, params, user)).scheduled_message_id;
const removed = (events: ZulipEvent[]) =>
  events.filter((e) => e.type === "scheduled_messages" && e.op === "remove").map((e) => e.scheduled_message_id);
const messagesOf = (events: ZulipEvent[]) =>
  events.filter((e) => e.type === "message").map((e) => e.message as Record<string, unknown>);
const scheduledOf = async (user: TestUser) =>
  (await sys.call(messaging.getScheduledMessages, {}, user)).scheduled_messages;
const registered = async (user: TestUser) =>
  (await sys.call(notifications.registerQueue, { fetch_event_types: ["scheduled_messages"] }, user)) as unknown as {
    scheduled_messages: unknown;
  };

describe("delivery", () => {
  it("sends each due message once, as its sender, with two instances running", async () => {
    const mine = await EventReader.register(sys.api(alice), { event_types: ["scheduled_messages"] });
    const bobs = await EventReader.register(sys.api(bob), { event_types: ["message"], apply_markdown: false });
    const at = soon();
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) {
      ids.push(
        await schedule({
          type: "stream",
          to: design,
          topic: "later",
          content: `news ${n}`,
          scheduled_delivery_timestamp: at,
        }),
      );
    }
    ids.push(await schedule({ type: "direct", to: [bob.userId], content: "psst", scheduled_delivery_timestamp: at }));
    // register's copy (each instance keeps one in memory) lists them until they are sent, then no more
    const registered = async () =>
      (
        (await sys.call(
          notifications.registerQueue,
          { fetch_event_types: ["scheduled_messages"] },
          alice,
        )) as unknown as {
          scheduled_messages: Array<{ scheduled_message_id: number }>;
        }
      ).scheduled_messages.map((m) => m.scheduled_message_id);
    expect((await registered()).sort()).toEqual([...ids].sort());
    expect((await registered()).sort()).toEqual([...ids].sort());
    await mine.until((e) => removed(e).length >= ids.length, 20_000);
    expect(removed(mine.events).sort()).toEqual([...ids].sort());
    expect(await registered()).toEqual([]);
    expect(await registered()).toEqual([]);
    const received = messagesOf(await bobs.until((e) => messagesOf(e).length >= ids.length, 10_000));
    expect(received.map((msg) => msg.content).sort()).toEqual([
      "news 0",
      "news 1",
      "news 2",
      "news 3",
      "news 4",
      "psst",
    ]);
    for (const msg of received) expect(msg).toMatchObject({ sender_id: alice.userId });
    expect(received.filter((msg) => msg.type === "stream").every((msg) => msg.subject === "later")).toBe(true);
    // nothing more: every message once (a marker message proves the queue is read up to now)
    await sys.call(messaging.sendMessage, { type: "private", to: [bob.userId], content: "marker" }, alice);
    const all = messagesOf(await bobs.until((e) => messagesOf(e).some((msg) => msg.content === "marker")));
    expect(all).toHaveLength(ids.length + 1);
    // stored once too, and read by the sender as a send is
    const { messages } = await sys.call(
      messaging.getMessages,
      {
        anchor: "newest",
        num_before: 20,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: design },
          { operator: "topic", operand: "later" },
        ],
      },
      alice,
    );
    expect(messages.map((msg) => msg.content).sort()).toEqual([
      "<p>news 0</p>",
      "<p>news 1</p>",
      "<p>news 2</p>",
      "<p>news 3</p>",
      "<p>news 4</p>",
    ]);
    expect(messages.every((msg) => msg.flags.includes("read"))).toBe(true);
    expect(await scheduledOf(alice)).toEqual([]);
    const state = (await sys.call(
      notifications.registerQueue,
      { fetch_event_types: ["scheduled_messages"] },
      alice,
    )) as unknown as {
      scheduled_messages: unknown[];
    };
    expect(state.scheduled_messages).toEqual([]);
  });

  it("marks a message that can no longer be sent failed, and Notification Bot tells the sender", async () => {
    const secret = await createChannel(sys, alice, "secret", [alice.userId], { invite_only: true });
    const mine = await EventReader.register(sys.api(alice), {
      event_types: ["scheduled_messages", "message"],
      apply_markdown: false,
    });
    const at = soon();
    const id = await schedule({
      type: "stream",
      to: secret,
      topic: "t",
      content: "for me",
      scheduled_delivery_timestamp: at,
    });
    // Alice leaves the private channel before the time: the send is checked again and refused
    await sys.call(messaging.unsubscribe, { subscriptions: ["secret"] }, alice);
    const failedEvent = (e: ZulipEvent) => e.type === "scheduled_messages" && e.op === "update";
    const events = await mine.until((e) => e.some(failedEvent) && messagesOf(e).length >= 1, 20_000);
    const failed = {
      scheduled_message_id: id,
      to: secret,
      type: "stream",
      content: "for me",
      rendered_content: "<p>for me</p>",
      topic: "t",
      scheduled_delivery_timestamp: at,
      failed: true,
    };
    expect(events.find(failedEvent)).toMatchObject({ scheduled_message: failed });
    expect(removed(events)).toEqual([]);
    const [notice] = messagesOf(events);
    const when = new Date(at * 1000)
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d+Z$/, "+00:00");
    expect(notice).toMatchObject({
      sender_email: "notification-bot@zulip.com",
      type: "private",
      content:
        `The message you scheduled for <time:${when}> was not sent because of the following error:\n\n` +
        `> Not authorized to send to channel 'secret'\n\n[View scheduled messages](#scheduled)`,
    });
    expect(await scheduledOf(alice)).toEqual([failed]);
    // a failed message is edited with a new time, and waits again
    await expectZulipError(
      sys.call(messaging.updateScheduledMessage, { scheduled_message_id: id, content: "again" }, alice),
      badRequestError("Scheduled delivery time must be in the future."),
    );
    const next = Math.floor(Date.now() / 1000) + 3600;
    await sys.call(
      messaging.updateScheduledMessage,
      { scheduled_message_id: id, scheduled_delivery_timestamp: next },
      alice,
    );
    expect(await scheduledOf(alice)).toEqual([{ ...failed, scheduled_delivery_timestamp: next, failed: false }]);
    await sys.call(messaging.deleteScheduledMessage, { scheduled_message_id: id }, alice);
  });

  it("fails a deactivated sender's message quietly; register shows it failed once they are back", async () => {
    const dora = await sys.makeUser("Dora", 400, "Dora");
    const at = soon();
    const id = await schedule(
      { type: "stream", to: design, topic: "away", content: "while away", scheduled_delivery_timestamp: at },
      dora,
    );
    const [stored] = await scheduledOf(dora);
    expect(stored).toMatchObject({ scheduled_message_id: id, failed: false });
    // register's copy in both instances (each register may reach either)
    for (let n = 0; n < 4; n++) expect((await registered(dora)).scheduled_messages).toEqual([stored]);
    await sys.call(identity.deactivateUser, { user_id: dora.userId }, sys.owner);
    // the time passes while Dora is deactivated (this waits for the clock, not for the system)
    while (Date.now() / 1000 <= at + 3) await new Promise((resolve) => setTimeout(resolve, 100));
    await sys.call(identity.reactivateUser, { user_id: dora.userId }, sys.owner);
    const deadline = Date.now() + 20_000;
    while ((await scheduledOf(dora)).some((m) => !m.failed) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Zulip sends no event for it (nor a notice); register's copies are dropped all the same
    expect(await scheduledOf(dora)).toEqual([{ ...stored, failed: true }]);
    for (let n = 0; n < 4; n++) {
      expect((await registered(dora)).scheduled_messages).toEqual([{ ...stored, failed: true }]);
    }
    await sys.call(messaging.deleteScheduledMessage, { scheduled_message_id: id }, dora);
  });

  it("sends the messages that fell due while no instance ran when messaging starts again", async () => {
    const mine = await EventReader.register(sys.api(alice), { event_types: ["scheduled_messages"] });
    const at = Math.floor(Date.now() / 1000) + 1;
    const id = await schedule({
      type: "stream",
      to: design,
      topic: "restart",
      content: "still here",
      scheduled_delivery_timestamp: at,
    });
    await sys.stopService("messaging");
    await sys.stopService("messaging");
    // the time passes while messaging is down (this waits for the clock, not for the system)
    while (Date.now() / 1000 <= at + 1) await new Promise((resolve) => setTimeout(resolve, 100));
    await sys.startService("messaging");
    await mine.until((e) => removed(e).includes(id), 20_000);
    const { messages } = await sys.call(
      messaging.getMessages,
      {
        anchor: "newest",
        num_before: 5,
        num_after: 0,
        narrow: [
          { operator: "channel", operand: design },
          { operator: "topic", operand: "restart" },
        ],
      },
      bob,
    );
    expect(messages.map((msg) => [msg.sender_id, msg.content])).toEqual([[alice.userId, "<p>still here</p>"]]);
  });
});
