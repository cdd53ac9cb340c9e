/**
 * Scheduled messages (Zulip's views/scheduled_messages.py and
 * actions/scheduled_messages.py): GET/POST /scheduled_messages,
 * PATCH/DELETE /scheduled_messages/{id}, checked as POST /messages checks a
 * send, the scheduled_messages events and register's scheduled_messages.
 * Delivery is in scheduled-message-delivery.test.ts.
 */
import { messaging, notifications, type ParamsIn, type messaging as m } from "@teamchat/shared";
import { ZulipErrorReply, badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
let team: number, secret: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  team = await createChannel(org, alice, "team", [alice.userId, bob.userId]);
  secret = await createChannel(org, bob, "secret", [bob.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
/** Far enough ahead that nothing here is delivered while the file runs. */
const later = (hours = 1) => Math.floor(Date.now() / 1000) + hours * 3600;
const schedule = async (user: TestUser, params: ParamsIn<typeof messaging.createScheduledMessage>) =>
  (await org.call(messaging.createScheduledMessage, params, user)).scheduled_message_id;
const scheduledOf = async (user: TestUser) =>
  (await org.call(messaging.getScheduledMessages, {}, user)).scheduled_messages;
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["scheduled_messages"] }, user)) as unknown as {
      scheduled_messages: m.ScheduledMessage[];
    }
  ).scheduled_messages;
const update = (user: TestUser, params: ParamsIn<typeof messaging.updateScheduledMessage>) =>
  org.call(messaging.updateScheduledMessage, params, user);
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
const notFound = { status: 404, code: "BAD_REQUEST" as const, msg: "Scheduled message does not exist" };

/** The error POST /messages gives for the same message: scheduling must refuse it alike. */
async function sendError(user: TestUser, params: ParamsIn<typeof messaging.sendMessage>) {
  const err = await org.call(messaging.sendMessage, params, user).then(
    () => {
      throw new Error("the send succeeded");
    },
    (e: unknown) => e as ZulipErrorReply,
  );
  expect(err).toBeInstanceOf(ZulipErrorReply);
  const { result: _r, ...body } = err.body as Record<string, unknown>;
  return { status: err.status, ...body } as Parameters<typeof expectZulipError>[1];
}

describe("/scheduled_messages", () => {
  let channelId: number, directId: number;
  const channelAt = later(2);
  const directAt = later(1);

  it("schedules channel and direct messages, rendered; lists them soonest first; sends scheduled_messages add", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["scheduled_messages"] });
    const reply = await org.call(
      messaging.createScheduledMessage,
      {
        type: "channel",
        to: team,
        topic: " plans ",
        content: "**meet** at 5\n",
        scheduled_delivery_timestamp: channelAt,
      },
      alice,
    );
    expect(reply).toEqual({ ...success, scheduled_message_id: expect.any(Number) });
    channelId = reply.scheduled_message_id;
    directId = await schedule(alice, {
      type: "direct",
      to: [bob.userId, carol.userId, bob.userId],
      content: "hi both",
      topic: "ignored",
      scheduled_delivery_timestamp: directAt,
    });
    const channel = {
      scheduled_message_id: channelId,
      to: team,
      type: "stream",
      content: "**meet** at 5",
      rendered_content: "<p><strong>meet</strong> at 5</p>",
      topic: "plans",
      scheduled_delivery_timestamp: channelAt,
      failed: false,
    };
    const direct = {
      scheduled_message_id: directId,
      to: [bob.userId, carol.userId],
      type: "private",
      content: "hi both",
      rendered_content: "<p>hi both</p>",
      scheduled_delivery_timestamp: directAt,
      failed: false,
    };
    expect(await scheduledOf(alice)).toEqual([direct, channel]);
    expect(await registered(alice)).toEqual([direct, channel]);
    expect(withoutIds(await r.until((e) => e.length >= 2))).toEqual([
      { type: "scheduled_messages", op: "add", scheduled_messages: [channel] },
      { type: "scheduled_messages", op: "add", scheduled_messages: [direct] },
    ]);
    // a note to oneself lists oneself; others' lists are their own
    const selfId = await schedule(alice, {
      type: "private",
      to: [alice.userId],
      content: "me",
      scheduled_delivery_timestamp: later(3),
    });
    expect((await scheduledOf(alice))[2]).toMatchObject({ scheduled_message_id: selfId, to: [alice.userId] });
    expect(await scheduledOf(bob)).toEqual([]);
    expect(await registered(bob)).toEqual([]);
  });

  it("refuses what a send refuses, with the send's error, and Zulip's own checks; stores nothing", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["scheduled_messages"] });
    const before = await scheduledOf(alice);
    const at = later();
    await expectZulipError(
      org.call(
        messaging.createScheduledMessage,
        {
          type: "stream",
          to: team,
          topic: "t",
          content: "c",
          scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) - 1,
        },
        alice,
      ),
      badRequestError("Scheduled delivery time must be in the future."),
    );
    await expectZulipError(
      org.call(
        messaging.createScheduledMessage,
        { type: "stream", to: [team], topic: "t", content: "c", scheduled_delivery_timestamp: at },
        alice,
      ),
      badRequestError("Invalid data type for stream ID"),
    );
    await expectZulipError(
      org.call(
        messaging.createScheduledMessage,
        { type: "direct", to: bob.userId, content: "c", scheduled_delivery_timestamp: at },
        alice,
      ),
      badRequestError("Invalid data type for recipients"),
    );
    await expectZulipError(
      org.call(
        messaging.createScheduledMessage,
        { type: "direct", to: [bob.email], content: "c", scheduled_delivery_timestamp: at },
        alice,
      ),
      badRequestError("Recipient list may only contain user IDs"),
    );
    const asSends: Array<[TestUser, ParamsIn<typeof messaging.sendMessage>]> = [
      [alice, { type: "stream", to: 999_999, topic: "t", content: "c" }],
      [alice, { type: "stream", to: secret, topic: "t", content: "c" }],
      [guest, { type: "stream", to: team, topic: "t", content: "c" }],
      [alice, { type: "stream", to: team, content: "c" }],
      [alice, { type: "stream", to: team, topic: "t", content: "   " }],
      [alice, { type: "private", to: [999_999], content: "c" }],
      [alice, { type: "private", to: [], content: "c" }],
    ];
    for (const [user, send] of asSends) {
      const expected = await sendError(user, send);
      await expectZulipError(
        org.call(
          messaging.createScheduledMessage,
          { ...(send as ParamsIn<typeof messaging.createScheduledMessage>), scheduled_delivery_timestamp: at },
          user,
        ),
        expected,
      );
    }
    expect(await scheduledOf(alice)).toEqual(before);
    expect(await scheduledOf(guest)).toEqual([]);
    expect(await r.drain()).toEqual([]);
  });

  it("edits content, topic, addressing and time, checking again; sends scheduled_messages update", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["scheduled_messages"] });
    expect(await update(alice, { scheduled_message_id: channelId, content: "*soon*" })).toEqual(success);
    expect(await update(alice, { scheduled_message_id: channelId, topic: "news" })).toEqual(success);
    const newAt = later(4);
    expect(await update(alice, { scheduled_message_id: channelId, scheduled_delivery_timestamp: newAt })).toEqual(
      success,
    );
    const channel = {
      scheduled_message_id: channelId,
      to: team,
      type: "stream",
      content: "*soon*",
      rendered_content: "<p><em>soon</em></p>",
      topic: "news",
      scheduled_delivery_timestamp: newAt,
      failed: false,
    };
    expect((await scheduledOf(alice)).find((s) => s.scheduled_message_id === channelId)).toEqual(channel);
    // a direct message becomes a channel message and back
    expect(await update(alice, { scheduled_message_id: directId, type: "stream", to: team, topic: "moved" })).toEqual(
      success,
    );
    const asChannel = (await scheduledOf(alice)).find((s) => s.scheduled_message_id === directId);
    expect(asChannel).toEqual({
      scheduled_message_id: directId,
      to: team,
      type: "stream",
      content: "hi both",
      rendered_content: "<p>hi both</p>",
      topic: "moved",
      scheduled_delivery_timestamp: directAt,
      failed: false,
    });
    expect(await update(alice, { scheduled_message_id: directId, type: "direct", to: [carol.userId] })).toEqual(
      success,
    );
    const direct = {
      scheduled_message_id: directId,
      to: [carol.userId],
      type: "private",
      content: "hi both",
      rendered_content: "<p>hi both</p>",
      scheduled_delivery_timestamp: directAt,
      failed: false,
    };
    expect((await scheduledOf(alice)).find((s) => s.scheduled_message_id === directId)).toEqual(direct);
    const events = withoutIds(await r.until((e) => e.length >= 5));
    expect(events.map((e) => e.op)).toEqual(["update", "update", "update", "update", "update"]);
    expect(events[2]).toEqual({ type: "scheduled_messages", op: "update", scheduled_message: channel });
    expect(events[3]).toEqual({ type: "scheduled_messages", op: "update", scheduled_message: asChannel });
    expect(events[4]).toEqual({ type: "scheduled_messages", op: "update", scheduled_message: direct });
  });

  it("refuses bad edits with Zulip's errors and changes nothing", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["scheduled_messages"] });
    const before = await scheduledOf(alice);
    await expectZulipError(update(alice, { scheduled_message_id: channelId }), badRequestError("Nothing to change"));
    await expectZulipError(
      update(alice, { scheduled_message_id: channelId, type: "direct" }),
      badRequestError("Recipient required when updating type of scheduled message."),
    );
    await expectZulipError(
      update(alice, { scheduled_message_id: directId, type: "channel", to: team }),
      badRequestError("Topic required when updating scheduled message type to channel."),
    );
    await expectZulipError(
      update(alice, { scheduled_message_id: channelId, scheduled_delivery_timestamp: 1000 }),
      badRequestError("Scheduled delivery time must be in the future."),
    );
    const notAuthorized = await sendError(alice, { type: "stream", to: secret, topic: "t", content: "c" });
    await expectZulipError(update(alice, { scheduled_message_id: channelId, to: secret }), notAuthorized);
    await expectZulipError(
      update(alice, { scheduled_message_id: directId, to: [999_999] }),
      badRequestError("Invalid user ID 999999"),
    );
    await expectZulipError(
      update(alice, { scheduled_message_id: channelId, content: " " }),
      badRequestError("Message must not be empty"),
    );
    await expectZulipError(update(alice, { scheduled_message_id: 999_999, content: "x" }), notFound);
    // another user's scheduled message does not exist for them, whatever their role
    for (const other of [bob, guest, org.owner]) {
      await expectZulipError(update(other, { scheduled_message_id: channelId, content: "x" }), notFound);
      await expectZulipError(
        org.call(messaging.deleteScheduledMessage, { scheduled_message_id: channelId }, other),
        notFound,
      );
    }
    expect(await scheduledOf(alice)).toEqual(before);
    expect(await r.drain()).toEqual([]);
  });

  it("deletes one (scheduled_messages remove)", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["scheduled_messages"] });
    const before = await scheduledOf(alice);
    expect(await org.call(messaging.deleteScheduledMessage, { scheduled_message_id: channelId }, alice)).toEqual(
      success,
    );
    expect(await scheduledOf(alice)).toEqual(before.filter((s) => s.scheduled_message_id !== channelId));
    await expectZulipError(
      org.call(messaging.deleteScheduledMessage, { scheduled_message_id: channelId }, alice),
      notFound,
    );
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      { type: "scheduled_messages", op: "remove", scheduled_message_id: channelId },
    ]);
  });
});
