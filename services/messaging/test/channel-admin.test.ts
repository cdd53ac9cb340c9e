/**
 * Channel administration (Zulip's update_stream_backend, deactivate_stream_backend,
 * add/remove_default_stream): who may change what, each error (and that it
 * changed nothing), the stream and default_streams events each user gets and
 * does not get, register state after each change, and new users joining the
 * default channels.
 */
import { messaging, notifications, SYSTEM_GROUPS, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let admin: TestUser, mod: TestUser, alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
/** a public channel whose description changes serve as the marker every member sees last */
let town: number;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("Admin", 200, "Admin");
  mod = await org.makeUser("Mod", 300, "Mod");
  ({ alice, bob, carol, guest } = await makeCast(org));
  town = await createChannel(org, org.owner, "town", [org.owner.userId]);
});
afterAll(() => org?.stop());

const update = (user: Credentials, params: ParamsIn<typeof messaging.updateStream>) =>
  org.call(messaging.updateStream, params, user);
const stream = async (id: number, user: Credentials = org.owner) =>
  (await org.call(messaging.getStreamById, { stream_id: id }, user)).stream;
const streamEvents = (user: Credentials, capabilities: Record<string, boolean> = {}) =>
  EventReader.register(org.api(user), {
    event_types: ["stream", "subscription", "default_streams"],
    client_capabilities: capabilities,
  });

let markers = 0;
/** Changes town's description: once a reader has this event, it has every earlier one. */
async function marker(): Promise<(e: ZulipEvent) => boolean> {
  const value = `marker ${++markers}`;
  await update(org.owner, { stream_id: town, description: value });
  return (e) => e.type === "stream" && e.stream_id === town && e.value === value;
}
/** The reader's events up to the marker, the marker's own excluded. */
async function eventsUntil(reader: EventReader, isMarker: (e: ZulipEvent) => boolean): Promise<ZulipEvent[]> {
  const events = await reader.until((es) => es.some(isMarker));
  return events.slice(0, events.findIndex(isMarker));
}

describe("PATCH /streams/{stream_id}: who may", () => {
  let pub: number, priv: number;
  beforeAll(async () => {
    pub = await createChannel(org, alice, "who-pub", [alice.userId, bob.userId, guest.userId]);
    priv = await createChannel(org, alice, "who-priv", [alice.userId, bob.userId], { invite_only: true });
  });

  it("organization owners and administrators, and the creator (can_administer_channel_group)", async () => {
    expect(await update(alice, { stream_id: pub, description: "by the creator" })).toEqual({
      result: "success",
      msg: "",
    });
    await update(admin, { stream_id: pub, description: "by an administrator" });
    // administrators need no subscription to administer a private channel
    await update(admin, { stream_id: priv, description: "private, by an administrator" });
    await update(org.owner, { stream_id: priv, description: "private, by the owner" });
    expect((await stream(priv)).description).toBe("private, by the owner");
  });

  it("others who may read the channel are told they may not administer it; others that it does not exist", async () => {
    const notAdmin = badRequestError("You do not have permission to administer this channel.");
    await expectZulipError(update(bob, { stream_id: pub, description: "x" }), notAdmin);
    await expectZulipError(update(mod, { stream_id: pub, description: "x" }), notAdmin);
    await expectZulipError(update(guest, { stream_id: pub, description: "x" }), notAdmin);
    await expectZulipError(update(bob, { stream_id: priv, description: "x" }), notAdmin);
    await expectZulipError(update(carol, { stream_id: priv, description: "x" }), badRequestError("Invalid channel ID"));
    await expectZulipError(
      update(alice, { stream_id: 987654, description: "x" }),
      badRequestError("Invalid channel ID"),
    );
    expect((await stream(pub)).description).toBe("by an administrator");
  });

  it("can_administer_channel_group: a member put in it may administer, a guest never", async () => {
    await update(alice, {
      stream_id: pub,
      can_administer_channel_group: {
        new: { direct_members: [alice.userId, bob.userId, guest.userId], direct_subgroups: [] },
      },
    });
    await update(bob, { stream_id: pub, description: "by bob" });
    await expectZulipError(
      update(guest, { stream_id: pub, description: "x" }),
      badRequestError("You do not have permission to administer this channel."),
    );
  });
});

describe("PATCH /streams/{stream_id}: properties and their events", () => {
  it("rename: everyone who sees a public channel hears it, under its old name; the reply is empty", async () => {
    const id = await createChannel(org, alice, "old-name", [alice.userId]);
    const bobEvents = await streamEvents(bob);
    await update(alice, { stream_id: id, new_name: "  new-name  " });
    expect((await stream(id)).name).toBe("new-name");
    const [renamed] = await bobEvents.until((es) => es.some((e) => e.stream_id === id));
    expect(renamed).toEqual({
      id: expect.any(Number),
      type: "stream",
      op: "update",
      stream_id: id,
      name: "old-name",
      property: "name",
      value: "new-name",
    });
    // only the case: allowed, the name is still its own
    await update(alice, { stream_id: id, new_name: "New-Name" });
    expect((await stream(id)).name).toBe("New-Name");
    expect((await org.call(messaging.getStreamId, { stream: "new-name" }, bob)).stream_id).toBe(id);
  });

  it("rename errors: the same name, a taken name, an invalid name; nothing changes", async () => {
    const id = await createChannel(org, alice, "rename-me", [alice.userId]);
    await createChannel(org, alice, "taken", []);
    await expectZulipError(
      update(alice, { stream_id: id, new_name: "rename-me" }),
      badRequestError("Channel already has that name."),
    );
    await expectZulipError(update(alice, { stream_id: id, new_name: "TAKEN" }), {
      status: 400,
      code: "CHANNEL_ALREADY_EXISTS",
      msg: "Channel 'TAKEN' already exists",
      channel_name: "TAKEN",
    });
    await expectZulipError(
      update(alice, { stream_id: id, new_name: "  " }),
      badRequestError("Channel name can't be empty."),
    );
    await expectZulipError(
      update(alice, { stream_id: id, new_name: "a\u0001b" }),
      badRequestError("Invalid character in channel name, at position 2."),
    );
    expect((await stream(id)).name).toBe("rename-me");
  });

  it("a private channel's rename reaches its subscribers and administrators, never anyone else", async () => {
    const id = await createChannel(org, alice, "hush", [alice.userId, carol.userId], { invite_only: true });
    const [carolEvents, adminEvents, bobEvents, guestEvents] = await Promise.all(
      [carol, admin, bob, guest].map((u) => streamEvents(u)),
    );
    await update(alice, { stream_id: id, new_name: "hush-hush" });
    const isMarker = await marker();
    for (const reader of [carolEvents, adminEvents]) {
      expect(await eventsUntil(reader, isMarker)).toEqual([
        expect.objectContaining({ stream_id: id, property: "name", name: "hush", value: "hush-hush" }),
      ]);
    }
    expect(await eventsUntil(bobEvents, isMarker)).toEqual([]);
    // guests do not see town: they get nothing at all
    expect(await guestEvents.drain()).toEqual([]);
  });

  it("description: newlines become spaces, the event carries the rendered description", async () => {
    const id = await createChannel(org, alice, "described", [alice.userId]);
    const bobEvents = await streamEvents(bob);
    await update(alice, { stream_id: id, description: "**bold**\nnext" });
    expect(await stream(id)).toMatchObject({
      description: "**bold** next",
      rendered_description: "<p><strong>bold</strong> next</p>",
    });
    const [changed] = await bobEvents.until((es) => es.some((e) => e.stream_id === id));
    expect(changed).toEqual({
      id: expect.any(Number),
      type: "stream",
      op: "update",
      stream_id: id,
      name: "described",
      property: "description",
      value: "**bold** next",
      rendered_description: "<p><strong>bold</strong> next</p>",
    });
  });

  it("privacy: made private, non-subscribers lose it (stream delete); the event carries the history settings", async () => {
    const id = await createChannel(org, alice, "going-private", [alice.userId, carol.userId]);
    const [carolEvents, bobEvents] = await Promise.all([streamEvents(carol), streamEvents(bob)]);
    await update(alice, { stream_id: id, is_private: true });
    expect(await stream(id)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
    const isMarker = await marker();
    expect(await eventsUntil(carolEvents, isMarker)).toEqual([
      {
        id: expect.any(Number),
        type: "stream",
        op: "update",
        stream_id: id,
        name: "going-private",
        property: "invite_only",
        value: true,
        history_public_to_subscribers: false,
        is_web_public: false,
      },
    ]);
    expect(await eventsUntil(bobEvents, isMarker)).toEqual([
      { id: expect.any(Number), type: "stream", op: "delete", streams: [{ stream_id: id }], stream_ids: [id] },
    ]);
    expect((await org.call(messaging.getStreams, {}, bob)).streams.map((s) => s.stream_id)).not.toContain(id);
  });

  it("privacy: made public, those who could not see it get it whole with its subscribers", async () => {
    const id = await createChannel(org, alice, "going-public", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    const [aliceEvents, bobEvents] = await Promise.all([streamEvents(alice), streamEvents(bob)]);
    await update(alice, { stream_id: id, is_private: false });
    const isMarker = await marker();
    expect(await eventsUntil(aliceEvents, isMarker)).toEqual([
      expect.objectContaining({
        stream_id: id,
        property: "invite_only",
        value: false,
        history_public_to_subscribers: true,
      }),
    ]);
    const revealed = await eventsUntil(bobEvents, isMarker);
    expect(revealed).toEqual([
      { id: expect.any(Number), type: "stream", op: "create", streams: [await stream(id)] },
      { id: expect.any(Number), type: "subscription", op: "peer_add", stream_ids: [id], user_ids: [alice.userId] },
    ]);
  });

  it("privacy errors: incoherent combinations, content access, web-public; nothing changes", async () => {
    const pub = await createChannel(org, alice, "coherent", [alice.userId]);
    const priv = await createChannel(org, alice, "closed", [alice.userId], { invite_only: true });
    await expectZulipError(
      update(alice, { stream_id: pub, history_public_to_subscribers: false }),
      badRequestError("Invalid parameters"),
    );
    await expectZulipError(
      update(alice, { stream_id: pub, is_private: false, history_public_to_subscribers: false }),
      badRequestError("Invalid parameters"),
    );
    // an administrator not subscribed to a private channel may not change its privacy
    await expectZulipError(
      update(admin, { stream_id: priv, is_private: false }),
      badRequestError("Channel content access is required."),
    );
    await expectZulipError(
      update(alice, { stream_id: pub, is_web_public: true }),
      badRequestError("Web-public channels are not enabled."),
    );
    await org.call(messaging.addDefaultStream, { stream_id: pub }, admin);
    await expectZulipError(
      update(alice, { stream_id: pub, is_private: true }),
      badRequestError("A default channel cannot be private."),
    );
    await org.call(messaging.removeDefaultStream, { stream_id: pub }, admin);
    expect(await stream(pub)).toMatchObject({ invite_only: false, history_public_to_subscribers: true });
    expect(await stream(priv)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
  });

  it("message_retention_days: organization owners only; null is the organization's default", async () => {
    const id = await createChannel(org, alice, "retained", [alice.userId]);
    await expectZulipError(update(admin, { stream_id: id, message_retention_days: 30 }), {
      status: 400,
      code: "UNAUTHORIZED_PRINCIPAL",
      msg: "Must be an organization owner",
    });
    const aliceEvents = await streamEvents(alice);
    await update(org.owner, { stream_id: id, message_retention_days: 30 });
    expect((await stream(id)).message_retention_days).toBe(30);
    await update(org.owner, { stream_id: id, message_retention_days: "unlimited" });
    expect((await stream(id)).message_retention_days).toBe(-1);
    await expectZulipError(
      update(org.owner, { stream_id: id, message_retention_days: "never" }),
      badRequestError("Bad value for 'message_retention_days': never"),
    );
    const events = await aliceEvents.until((es) => es.filter((e) => e.stream_id === id).length === 2);
    expect(events.map((e) => [e.property, e.value])).toEqual([
      ["message_retention_days", 30],
      ["message_retention_days", -1],
    ]);
  });

  it("topics_policy: a known policy; the event only when it changes", async () => {
    const id = await createChannel(org, alice, "topical", [alice.userId]);
    await expectZulipError(
      update(alice, { stream_id: id, topics_policy: "whatever" }),
      badRequestError("Invalid topics_policy"),
    );
    const aliceEvents = await streamEvents(alice);
    await update(alice, { stream_id: id, topics_policy: "disable_empty_topic" });
    await update(alice, { stream_id: id, topics_policy: "disable_empty_topic" });
    const isMarker = await marker();
    expect((await eventsUntil(aliceEvents, isMarker)).map((e) => [e.property, e.value])).toEqual([
      ["topics_policy", "disable_empty_topic"],
    ]);
    expect((await stream(id)).topics_policy).toBe("disable_empty_topic");
  });

  it("group settings: the new value, checked against `old`, one event; permissions follow at once", async () => {
    const id = await createChannel(org, alice, "announcements", [alice.userId, bob.userId]);
    const bobEvents = await streamEvents(bob);
    const admins = SYSTEM_GROUPS["role:administrators"];
    await expectZulipError(
      update(alice, { stream_id: id, can_send_message_group: { new: admins, old: SYSTEM_GROUPS["role:members"] } }),
      badRequestError("'old' value does not match the expected value."),
    );
    await update(alice, {
      stream_id: id,
      can_send_message_group: {
        new: { direct_members: [], direct_subgroups: [admins] },
        old: SYSTEM_GROUPS["role:everyone"],
      },
    });
    expect((await stream(id)).can_send_message_group).toBe(admins);
    const [changed] = await bobEvents.until((es) => es.some((e) => e.stream_id === id));
    expect(changed).toEqual({
      id: expect.any(Number),
      type: "stream",
      op: "update",
      stream_id: id,
      name: "announcements",
      property: "can_send_message_group",
      value: admins,
    });
    await expectZulipError(
      org.call(messaging.sendMessage, { type: "stream", to: "announcements", topic: "t", content: "hi" }, bob),
      badRequestError("You do not have permission to post in this channel."),
    );
    await org.call(messaging.sendMessage, { type: "stream", to: "announcements", topic: "t", content: "hi" }, admin);
  });

  it("group settings granting access to a private channel: the new member sees it whole, and can read it", async () => {
    const id = await createChannel(org, alice, "inner", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    const carolEvents = await streamEvents(carol);
    const subscribeGroup = { direct_members: [carol.userId], direct_subgroups: [] };
    await update(alice, { stream_id: id, can_subscribe_group: { new: subscribeGroup } });
    const [created] = await carolEvents.until((es) => es.some((e) => e.op === "create"));
    expect(created).toMatchObject({
      type: "stream",
      op: "create",
      streams: [{ stream_id: id, can_subscribe_group: subscribeGroup }],
    });
    expect((await org.call(messaging.getStreamId, { stream: "inner" }, carol)).stream_id).toBe(id);
    // taken out again: the channel is gone for her
    await update(alice, { stream_id: id, can_subscribe_group: { new: SYSTEM_GROUPS["role:nobody"] } });
    const events = await carolEvents.until((es) => es.some((e) => e.op === "delete"));
    expect(events.at(-1)).toEqual({
      id: expect.any(Number),
      type: "stream",
      op: "delete",
      streams: [{ stream_id: id }],
      stream_ids: [id],
    });
    // an administrator who cannot read it may not give others access to it
    await expectZulipError(
      update(admin, { stream_id: id, can_subscribe_group: { new: subscribeGroup } }),
      badRequestError("Channel content access is required."),
    );
  });

  it("folder_id: an existing folder of the organization", async () => {
    const id = await createChannel(org, alice, "filed", [alice.userId]);
    await expectZulipError(
      update(alice, { stream_id: id, folder_id: 987654 }),
      badRequestError("Invalid channel folder ID"),
    );
  });

  it("nothing to change: success, no event", async () => {
    const id = await createChannel(org, alice, "unchanged", [alice.userId]);
    const aliceEvents = await streamEvents(alice);
    await update(alice, { stream_id: id });
    const isMarker = await marker();
    expect(await eventsUntil(aliceEvents, isMarker)).toEqual([]);
  });
});

describe("default channels", () => {
  it("administrators add and remove them; members and guests hear default_streams, register agrees", async () => {
    const id = await createChannel(org, alice, "welcome", [alice.userId]);
    const [bobEvents, guestEvents] = await Promise.all([streamEvents(bob), streamEvents(guest)]);
    expect(await org.call(messaging.addDefaultStream, { stream_id: id }, admin)).toEqual({
      result: "success",
      msg: "",
    });
    const [added] = await bobEvents.until((es) => es.some((e) => e.type === "default_streams"));
    expect(added).toEqual({ id: expect.any(Number), type: "default_streams", default_streams: [id] });
    const state = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["default_streams"] },
      bob,
    )) as unknown as {
      realm_default_streams: number[];
    };
    expect(state.realm_default_streams).toEqual([id]);

    // a new user joins the default channels
    const dana = await org.makeUser("Dana", 400, "Dana");
    expect((await org.call(messaging.getSubscriptions, {}, dana)).subscriptions.map((s) => s.stream_id)).toEqual([id]);

    await org.call(messaging.removeDefaultStream, { stream_id: id }, org.owner);
    const events = await bobEvents.until((es) => es.filter((e) => e.type === "default_streams").length === 2);
    expect(events.filter((e) => e.type === "default_streams").at(-1)).toMatchObject({ default_streams: [] });
    const erin = await org.makeUser("Erin", 400, "Erin");
    expect((await org.call(messaging.getSubscriptions, {}, erin)).subscriptions).toEqual([]);
    // guests are not told
    expect((await guestEvents.drain()).filter((e) => e.type === "default_streams")).toEqual([]);
  });

  it("errors: not an administrator, a private channel, an unknown channel", async () => {
    const pub = await createChannel(org, alice, "not-default", [alice.userId]);
    const priv = await createChannel(org, alice, "private-default", [alice.userId, admin.userId], {
      invite_only: true,
    });
    const cannot = badRequestError("You do not have permission to change default channels.");
    await expectZulipError(org.call(messaging.addDefaultStream, { stream_id: pub }, alice), cannot);
    await expectZulipError(org.call(messaging.addDefaultStream, { stream_id: pub }, mod), cannot);
    await expectZulipError(org.call(messaging.removeDefaultStream, { stream_id: pub }, alice), cannot);
    await expectZulipError(update(alice, { stream_id: pub, is_default_stream: true }), cannot);
    await expectZulipError(
      org.call(messaging.addDefaultStream, { stream_id: priv }, admin),
      badRequestError("Private channels cannot be made default."),
    );
    await expectZulipError(
      org.call(messaging.addDefaultStream, { stream_id: 987654 }, admin),
      badRequestError("Invalid channel ID"),
    );
    const all = (await org.call(messaging.getStreams, { include_default: true, include_all: true }, admin)).streams;
    expect(all.filter((s) => s.is_default).map((s) => s.name)).toEqual([]);
  });

  it("PATCH is_default_stream does the same", async () => {
    const id = await createChannel(org, alice, "patched-default", [alice.userId]);
    const bobEvents = await streamEvents(bob);
    await update(admin, { stream_id: id, is_default_stream: true });
    const [added] = await bobEvents.until((es) => es.some((e) => e.type === "default_streams"));
    expect(added).toMatchObject({ default_streams: [id] });
    await update(admin, { stream_id: id, is_default_stream: false });
  });
});

describe("DELETE /streams/{stream_id}: archiving", () => {
  it("archives: told as is_archived to archived_channels clients, as a delete to others; sending refused", async () => {
    const id = await createChannel(org, alice, "old-stuff", [alice.userId, bob.userId]);
    await org.call(messaging.addDefaultStream, { stream_id: id }, admin);
    const [modern, legacy, hidden] = await Promise.all([
      streamEvents(bob, { archived_channels: true }),
      streamEvents(bob),
      streamEvents(guest),
    ]);
    expect(await org.call(messaging.archiveStream, { stream_id: id }, alice)).toEqual({ result: "success", msg: "" });

    const modernEvents = await modern.until((es) => es.some((e) => e.property === "is_archived"));
    expect(modernEvents.filter((e) => e.type === "stream")).toEqual([
      {
        id: expect.any(Number),
        type: "stream",
        op: "update",
        stream_id: id,
        name: "old-stuff",
        property: "is_archived",
        value: true,
      },
    ]);
    // it is no longer a default channel
    expect(modernEvents.filter((e) => e.type === "default_streams").at(-1)).toMatchObject({ default_streams: [] });
    const legacyEvents = await legacy.until((es) => es.some((e) => e.op === "delete"));
    expect(legacyEvents.filter((e) => e.type === "stream")).toEqual([
      { id: expect.any(Number), type: "stream", op: "delete", streams: [{ stream_id: id }], stream_ids: [id] },
    ]);
    expect((await hidden.drain()).filter((e) => e.type === "stream")).toEqual([]);

    await expectZulipError(
      org.call(messaging.sendMessage, { type: "stream", to: "old-stuff", topic: "t", content: "hi" }, bob),
      badRequestError("Not authorized to send to channel 'old-stuff'"),
    );
    await expectZulipError(
      org.call(messaging.getStreamId, { stream: "old-stuff" }, bob),
      badRequestError("Invalid channel name 'old-stuff'"),
    );
    await expectZulipError(
      org.call(messaging.archiveStream, { stream_id: id }, alice),
      badRequestError("Channel is already deactivated"),
    );
  });

  it("archived channels: left out by exclude_archived and by register unless the client declared archived_channels", async () => {
    const id = await createChannel(org, alice, "shelved", [alice.userId]);
    await org.call(messaging.archiveStream, { stream_id: id }, admin);
    const listed = async (params: ParamsIn<typeof messaging.getStreams>) =>
      (await org.call(messaging.getStreams, params, alice)).streams.filter((s) => s.stream_id === id);
    expect(await listed({})).toEqual([]);
    expect(await listed({ exclude_archived: false })).toEqual([expect.objectContaining({ is_archived: true })]);
    const register = async (capabilities: Record<string, boolean>) =>
      (await org.call(
        notifications.registerQueue,
        { fetch_event_types: ["stream", "subscription"], client_capabilities: capabilities },
        alice,
      )) as unknown as {
        streams: Array<{ stream_id: number }>;
        subscriptions: Array<{ stream_id: number; is_archived: boolean }>;
      };
    const legacy = await register({});
    expect(legacy.streams.map((s) => s.stream_id)).not.toContain(id);
    expect(legacy.subscriptions.map((s) => s.stream_id)).not.toContain(id);
    const modern = await register({ archived_channels: true });
    expect(modern.streams.map((s) => s.stream_id)).toContain(id);
    expect(modern.subscriptions.find((s) => s.stream_id === id)).toMatchObject({ is_archived: true });
  });

  it("PATCH is_archived=false unarchives: archived_channels clients hear is_archived, others get the channel anew", async () => {
    const id = await createChannel(org, alice, "revived", [alice.userId, bob.userId]);
    await org.call(messaging.archiveStream, { stream_id: id }, alice);
    const [modern, legacy] = await Promise.all([streamEvents(bob, { archived_channels: true }), streamEvents(bob)]);
    await update(alice, { stream_id: id, is_archived: false });
    const channel = await stream(id);
    expect(channel.is_archived).toBe(false);
    const isMarker = await marker();
    expect(await eventsUntil(modern, isMarker)).toEqual([
      {
        id: expect.any(Number),
        type: "stream",
        op: "update",
        stream_id: id,
        name: "revived",
        property: "is_archived",
        value: false,
      },
    ]);
    expect(await eventsUntil(legacy, isMarker)).toEqual([
      { id: expect.any(Number), type: "stream", op: "create", streams: [channel] },
    ]);
    await org.call(messaging.sendMessage, { type: "stream", to: "revived", topic: "t", content: "back" }, bob);
    await expectZulipError(
      update(alice, { stream_id: id, is_archived: false }),
      badRequestError("Channel is not currently deactivated"),
    );
  });

  it("who may: channel administrators; others as for PATCH", async () => {
    const id = await createChannel(org, alice, "keep", [alice.userId, bob.userId]);
    const priv = await createChannel(org, alice, "keep-private", [alice.userId], { invite_only: true });
    await expectZulipError(
      org.call(messaging.archiveStream, { stream_id: id }, bob),
      badRequestError("You do not have permission to administer this channel."),
    );
    await expectZulipError(
      org.call(messaging.archiveStream, { stream_id: priv }, bob),
      badRequestError("Invalid channel ID"),
    );
    await expectZulipError(
      org.call(messaging.archiveStream, { stream_id: 987654 }, admin),
      badRequestError("Invalid channel ID"),
    );
    expect((await stream(id)).is_archived).toBe(false);
    await org.call(messaging.archiveStream, { stream_id: priv }, admin);
  });
});
