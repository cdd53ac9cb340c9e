/**
 * Muted users (Zulip's muted_users.py): POST/DELETE
 * /users/me/muted_users/{muted_user_id} and their errors, register's
 * muted_users and the muted_users event, and Zulip's effects: the muted
 * user's unread messages are marked read at once, their later messages arrive
 * read, and read receipts leave muted and muting users out.
 */
import { identity, messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
let team: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 600, "Carol");
  dave = await org.makeUser("Dave", 400, "Dave");
  team = await createChannel(org, alice, "team", [alice.userId, bob.userId, carol.userId, dave.userId]);
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
const mute = (user: TestUser, muted_user_id: number) => org.call(messaging.muteUser, { muted_user_id }, user);
const unmute = (user: TestUser, muted_user_id: number) => org.call(messaging.unmuteUser, { muted_user_id }, user);
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["muted_users"] }, user)) as unknown as {
      muted_users: Array<{ id: number; timestamp: number }>;
    }
  ).muted_users;
const mutedIds = async (user: TestUser) => (await registered(user)).map((m) => m.id);
const send = async (params: ParamsIn<typeof messaging.sendMessage>, from: TestUser) =>
  (await org.call(messaging.sendMessage, params, from)).id;
const toTeam = (from: TestUser, content = "hello") => send({ type: "stream", to: team, topic: "t", content }, from);
const flagsOf = async (user: TestUser, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message.flags;
const markRead = (user: TestUser, messages: number[]) =>
  org.call(messaging.updateMessageFlags, { messages, op: "add", flag: "read" }, user);
const receipts = async (user: TestUser, id: number) =>
  (await org.call(messaging.getReadReceipts, { message_id: id }, user)).user_ids;
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);

describe("/users/me/muted_users/{muted_user_id}", () => {
  it("mutes users; register and the event list them, oldest first", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["muted_users"] });
    const before = Math.floor(Date.now() / 1000);
    expect(await mute(alice, bob.userId)).toEqual(success);
    expect(await mute(alice, carol.userId)).toEqual(success);
    const muted = await registered(alice);
    expect(muted.map((m) => m.id)).toEqual([bob.userId, carol.userId]);
    for (const m of muted) {
      expect(m.timestamp).toBeGreaterThanOrEqual(before);
      expect(m.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    }
    expect(withoutIds(await r.until((e) => e.length >= 2))).toEqual([
      { type: "muted_users", muted_users: [muted[0]] },
      { type: "muted_users", muted_users: muted },
    ]);
    // muting is one-way and personal
    expect(await mutedIds(bob)).toEqual([]);
  });

  it("unmutes; the event lists who is still muted", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["muted_users"] });
    const [, carolMute] = await registered(alice);
    expect(await unmute(alice, bob.userId)).toEqual(success);
    expect(await registered(alice)).toEqual([carolMute]);
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      { type: "muted_users", muted_users: [carolMute] },
    ]);
  });

  it("refuses what Zulip refuses, and changes nothing", async () => {
    const before = await registered(alice);
    await expectZulipError(mute(alice, alice.userId), badRequestError("Cannot mute self"));
    await expectZulipError(mute(alice, carol.userId), badRequestError("User already muted"));
    await expectZulipError(mute(alice, 999_999), badRequestError("No such user"));
    await expectZulipError(unmute(alice, bob.userId), badRequestError("User is not muted"));
    await expectZulipError(unmute(alice, alice.userId), badRequestError("User is not muted"));
    await expectZulipError(unmute(alice, 999_999), badRequestError("No such user"));
    // a user of another organization is no user here
    const other = await testOrganization();
    try {
      await expectZulipError(mute(alice, other.owner.userId), badRequestError("No such user"));
    } finally {
      await other.stop();
    }
    await expectZulipError(org.api(alice).post("/users/me/muted_users/abc"), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Not Found",
    });
    expect(await registered(alice)).toEqual(before);
  });
});

describe("what muting does to messages", () => {
  it("marks the muted user's unread messages read at once (and only theirs), with an update_message_flags event", async () => {
    const fromDave = [await toTeam(dave), await send({ type: "private", to: [bob.userId], content: "hi" }, dave)];
    const fromAlice = await toTeam(alice);
    const readAlready = await toTeam(dave);
    await markRead(bob, [readAlready]);
    const r = await EventReader.register(org.api(bob), { event_types: ["update_message_flags"] });
    await mute(bob, dave.userId);
    for (const id of fromDave) expect(await flagsOf(bob, id)).toEqual(["read"]);
    expect(await flagsOf(bob, fromAlice)).toEqual([]);
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: fromDave, all: false },
    ]);
    // for the others, nothing changed
    expect(await flagsOf(carol, fromDave[0]!)).toEqual([]);
  });

  it("delivers a muted sender's later messages read to the users who muted them, mentions kept", async () => {
    const r = await EventReader.register(org.api(bob), { event_types: ["message"] });
    const id = await toTeam(dave, "@**Bob** look");
    expect(await flagsOf(bob, id)).toEqual(["read", "mentioned"]);
    expect(await flagsOf(carol, id)).toEqual([]);
    const [event] = await r.until((e) => e.length >= 1);
    expect(event!.flags).toEqual(["read", "mentioned"]);
    await unmute(bob, dave.userId);
    expect(await flagsOf(bob, await toTeam(dave))).toEqual([]);
  });

  it("read receipts leave out the users the caller muted and those who muted the caller", async () => {
    await org.call(identity.updateSettings, { send_read_receipts: true }, carol);
    const id = await toTeam(alice);
    for (const u of [bob, carol, dave]) await markRead(u, [id]);
    const everyone = [bob.userId, carol.userId, dave.userId].sort((a, b) => a - b);
    expect(await receipts(bob, id)).toEqual(everyone);
    // alice muted carol: carol is not shown to alice
    expect(await receipts(alice, id)).toEqual([bob.userId, dave.userId].sort((a, b) => a - b));
    // dave mutes bob: bob no longer sees dave, dave no longer sees bob (each still sees themself)
    await mute(dave, bob.userId);
    expect(await receipts(bob, id)).toEqual([bob.userId, carol.userId].sort((a, b) => a - b));
    expect(await receipts(dave, id)).toEqual([carol.userId, dave.userId].sort((a, b) => a - b));
    expect(await receipts(carol, id)).toEqual(everyone);
    await unmute(dave, bob.userId);
    expect(await receipts(bob, id)).toEqual(everyone);
  });
});
