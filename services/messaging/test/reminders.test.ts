/**
 * Message reminders (Zulip's reminders.py, FL 381/399/415): POST /reminders
 * stores Zulip's reminder text as a direct message to oneself, GET /reminders,
 * register's `reminders` and the reminders events list it, DELETE removes it,
 * and at its time Notification Bot sends it through the scheduled messages'
 * delivery.
 */
import { identity, messaging, notifications, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
let design: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
});
afterAll(() => org?.stop());

/** Far enough ahead that nothing is delivered while the file runs, but where a test waits for it. */
const tomorrow = () => Math.floor(Date.now() / 1000) + 86_400;
const soon = () => Math.floor(Date.now() / 1000) + 2;
const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
const remind = (user: Credentials, params: ParamsIn<typeof messaging.createReminder>) =>
  org.call(messaging.createReminder, params, user);
const list = async (user: Credentials) => {
  const body = await org.call(messaging.getReminders, {}, user);
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["msg", "reminders", "result"]);
  return body.reminders;
};
const registered = async (user: Credentials) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["reminders"] }, user)) as unknown as {
      reminders: unknown;
    }
  ).reminders;
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
const mention = (u: TestUser) => `@_**${u.fullName}|${u.userId}**`;
const quote = (text: string) => "```quote\n" + text + "\n```";

describe("reminders", () => {
  it("reminds of a channel message: the reply, GET /reminders, register and the add event agree", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["reminders"] });
    const id = await send(bob, { type: "stream", to: "design", topic: "colors", content: "**Pick** one" });
    const at = tomorrow();
    const { reminder_id, ...rest } = await remind(alice, { message_id: id, scheduled_delivery_timestamp: at });
    expect(rest).toEqual({ result: "success", msg: "" });
    const content =
      `You requested a reminder for #**design>colors@${id}**.\n\n` +
      `${mention(bob)} [said](${org.realm.uri}/#narrow/channel/${design}-design/topic/colors/near/${id}):\n` +
      quote("**Pick** one");
    const reminder = {
      reminder_id,
      to: [alice.userId],
      type: "private",
      content,
      rendered_content: expect.stringContaining("<strong>Pick</strong> one"),
      scheduled_delivery_timestamp: at,
      failed: false,
      reminder_target_message_id: id,
    };
    expect(await list(alice)).toEqual([reminder]);
    expect(await registered(alice)).toEqual([reminder]);
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      { type: "reminders", op: "add", reminders: [reminder] },
    ]);
    // not among the scheduled messages, and no one else's
    expect((await org.call(messaging.getScheduledMessages, {}, alice)).scheduled_messages).toEqual([]);
    expect(await list(bob)).toEqual([]);
    await org.call(messaging.deleteReminder, { reminder_id }, alice);
  });

  it("quotes a direct message, with the note; names a poll instead of quoting it", async () => {
    const dm = await send(bob, { type: "private", to: [alice.userId], content: "lunch?" });
    const withNote = await remind(alice, {
      message_id: dm,
      scheduled_delivery_timestamp: tomorrow(),
      note: "\n\nanswer Bob  ",
    });
    const poll = await send(bob, { type: "private", to: [alice.userId], content: "/poll Where?" });
    const pollReminder = await remind(alice, { message_id: poll, scheduled_delivery_timestamp: tomorrow() });
    const url = (msg: number) =>
      `${org.realm.uri}/#narrow/dm/${[alice.userId, bob.userId].sort((a, b) => a - b).join(",")}/near/${msg}`;
    const contents = new Map((await list(alice)).map((r) => [r.reminder_id, r.content]));
    expect(contents.get(withNote.reminder_id)).toBe(
      "You requested a reminder for the following direct message. Note:\n > answer Bob\n\n" +
        `${mention(bob)} [said](${url(dm)}):\n${quote("lunch?")}`,
    );
    expect(contents.get(pollReminder.reminder_id)).toBe(
      `You requested a reminder for the following direct message.\n\n${mention(bob)} [sent](${url(poll)}) a poll.`,
    );
    for (const { reminder_id } of [withNote, pollReminder]) {
      await org.call(messaging.deleteReminder, { reminder_id }, alice);
    }
  });

  it("refuses what Zulip refuses and stores nothing", async () => {
    const id = await send(bob, { type: "stream", to: "design", topic: "t", content: "hi" });
    const secret = await send(bob, { type: "private", to: [carol.userId], content: "secret" });
    await expectZulipError(
      remind(alice, { message_id: id, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) - 1 }),
      badRequestError("Scheduled delivery time must be in the future."),
    );
    await expectZulipError(
      remind(alice, { message_id: secret, scheduled_delivery_timestamp: tomorrow() }),
      badRequestError("Invalid message(s)"),
    );
    await expectZulipError(
      remind(alice, { message_id: 99_999_999, scheduled_delivery_timestamp: tomorrow() }),
      badRequestError("Invalid message(s)"),
    );
    // a guest does not see an unsubscribed public channel's messages
    await expectZulipError(
      remind(guest, { message_id: id, scheduled_delivery_timestamp: tomorrow() }),
      badRequestError("Invalid message(s)"),
    );
    await expectZulipError(
      remind(alice, { message_id: id, scheduled_delivery_timestamp: tomorrow(), note: "n".repeat(1001) }),
      badRequestError("Maximum reminder note length: 1000 characters"),
    );
    await expectZulipError(org.api(alice).post("/reminders", { message_id: id }), {
      ...badRequestError("Missing 'scheduled_delivery_timestamp' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "scheduled_delivery_timestamp",
    });
    expect(await list(alice)).toEqual([]);
  });

  it("deletes only the caller's own reminder, with the remove event", async () => {
    const id = await send(bob, { type: "stream", to: "design", topic: "t", content: "hi" });
    const { reminder_id } = await remind(alice, { message_id: id, scheduled_delivery_timestamp: tomorrow() });
    const r = await EventReader.register(org.api(alice), { event_types: ["reminders"] });
    const notFound = { status: 404, code: "BAD_REQUEST" as const, msg: "Reminder does not exist" };
    await expectZulipError(org.call(messaging.deleteReminder, { reminder_id }, bob), notFound);
    // a scheduled message's id is not a reminder's
    const scheduled = await org.call(
      messaging.createScheduledMessage,
      { type: "direct", to: [alice.userId], content: "later", scheduled_delivery_timestamp: tomorrow() },
      alice,
    );
    await expectZulipError(
      org.call(messaging.deleteReminder, { reminder_id: scheduled.scheduled_message_id }, alice),
      notFound,
    );
    await expectZulipError(org.call(messaging.deleteScheduledMessage, { scheduled_message_id: reminder_id }, alice), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Scheduled message does not exist",
    });
    expect(await org.call(messaging.deleteReminder, { reminder_id }, alice)).toEqual({ result: "success", msg: "" });
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([{ type: "reminders", op: "remove", reminder_id }]);
    expect(await list(alice)).toEqual([]);
    // register's copy (kept in memory, read when the queue above was registered) follows the deletion
    expect(await registered(alice)).toEqual([]);
    await expectZulipError(org.call(messaging.deleteReminder, { reminder_id }, alice), notFound);
    await org.call(messaging.deleteScheduledMessage, { scheduled_message_id: scheduled.scheduled_message_id }, alice);
  });

  it("at its time, Notification Bot sends it to its owner, unread, and it leaves the list", async () => {
    const id = await send(bob, { type: "stream", to: "design", topic: "due", content: "deadline" });
    const r = await EventReader.register(org.api(alice), { event_types: ["reminders", "message"] });
    const { reminder_id } = await remind(alice, { message_id: id, scheduled_delivery_timestamp: soon() });
    const [stored] = await list(alice);
    // register's copy lists it until it is sent
    expect(await registered(alice)).toEqual([stored]);
    const events = await r.until((e) => e.some((x) => x.type === "reminders" && x.op === "remove"), 20_000);
    expect(events.find((e) => e.type === "reminders" && e.op === "remove")).toMatchObject({ reminder_id });
    const delivered = events.find((e) => e.type === "message")!;
    expect(delivered.flags).toEqual([]);
    expect(delivered.message).toMatchObject({
      sender_full_name: "Notification Bot",
      type: "private",
      display_recipient: expect.arrayContaining([expect.objectContaining({ id: alice.userId })]),
    });
    const fetched = await org.call(
      messaging.getMessage,
      { message_id: (delivered.message as { id: number }).id, apply_markdown: false },
      alice,
    );
    expect(fetched.raw_content).toBe(stored!.content);
    expect(await list(alice)).toEqual([]);
    expect(await registered(alice)).toEqual([]);
  });

  it("a reminder whose owner was deactivated at its time fails, and register shows it failed once they are back", async () => {
    const id = await send(bob, { type: "stream", to: "design", topic: "away", content: "later" });
    const at = soon();
    const { reminder_id } = await remind(carol, { message_id: id, scheduled_delivery_timestamp: at });
    const [stored] = await list(carol);
    expect(stored).toMatchObject({ reminder_id, failed: false });
    expect(await registered(carol)).toEqual([stored]);
    await org.call(identity.deactivateUser, { user_id: carol.userId }, org.owner);
    // the time passes while Carol is deactivated (this waits for the clock, not for the system)
    while (Date.now() / 1000 <= at + 3) await new Promise((resolve) => setTimeout(resolve, 100));
    await org.call(identity.reactivateUser, { user_id: carol.userId }, org.owner);
    const deadline = Date.now() + 20_000;
    while ((await list(carol)).some((r) => !r.failed) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Zulip sends no event for the failure: register's copy is dropped all the same
    expect(await list(carol)).toEqual([{ ...stored, failed: true }]);
    expect(await registered(carol)).toEqual([{ ...stored, failed: true }]);
    await org.call(messaging.deleteReminder, { reminder_id }, carol);
    expect(await registered(carol)).toEqual([]);
  });
});
