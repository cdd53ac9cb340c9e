/**
 * Managing subscriptions (Zulip's remove_subscriptions_backend,
 * update_subscription_properties_backend, update_subscriptions_backend and
 * add_subscriptions_backend): who may subscribe and unsubscribe whom, each
 * error (and that it changed nothing), the subscription events and exactly
 * who gets them, and register's state after each change.
 */
import { messaging, messagingEvents, notifications, type ParamsIn, type PayloadOf } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { recordDomainEvents, type DomainEventRecorder } from "../../../test/support/domain-events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast, marker } from "./helpers";

let org: TestOrganization;
let owner: TestUser, admin: TestUser, mod: TestUser, alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  owner = org.owner;
  admin = await org.makeUser("Admin", 200, "Admin");
  mod = await org.makeUser("Mod", 300, "Mod");
  ({ alice, bob, carol, guest } = await makeCast(org));
});
afterAll(() => org?.stop());

let channels = 0;
/** A new channel created by alice, so that each test starts from a known state. */
const fresh = async (
  subscribers: TestUser[],
  extra: Partial<ParamsIn<typeof messaging.createChannel>> = {},
): Promise<{ id: number; name: string }> => {
  const name = `channel-${++channels}`;
  const id = await createChannel(
    org,
    alice,
    name,
    subscribers.map((u) => u.userId),
    extra,
  );
  return { id, name };
};
const onlyMembers = (...users: TestUser[]) => ({
  direct_members: users.map((u) => u.userId),
  direct_subgroups: [],
});

const unsubscribe = (user: Credentials, params: ParamsIn<typeof messaging.unsubscribe>) =>
  org.call(messaging.unsubscribe, params, user);
const subscribe = (user: Credentials, params: ParamsIn<typeof messaging.subscribe>) =>
  org.call(messaging.subscribe, params, user);
const setProperties = (user: Credentials, data: ParamsIn<typeof messaging.updateSubscriptionProperties>) =>
  org.call(messaging.updateSubscriptionProperties, data, user);
const subscriptionsOf = async (user: Credentials) =>
  (await org.call(messaging.getSubscriptions, { include_subscribers: true }, user)).subscriptions;
const subscribedNames = async (user: Credentials) => (await subscriptionsOf(user)).map((s) => s.name);
/** The channel's subscribers, as the owner (an administrator, who sees every channel) gets them from register. */
const subscribersOf = async (channel: { id: number }) => {
  const state = (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["subscription"], include_subscribers: true },
    owner,
  )) as unknown as Record<"subscriptions" | "unsubscribed" | "never_subscribed", messaging.NeverSubscribed[]>;
  const all = [...state.subscriptions, ...state.unsubscribed, ...state.never_subscribed];
  return all.find((s) => s.stream_id === channel.id)!.subscribers;
};
const registerState = async (user: TestUser) =>
  (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["subscription", "message", "update_message_flags"] },
    user,
  )) as unknown as {
    subscriptions: Array<{ name: string }>;
    unsubscribed: Array<{ name: string }>;
    never_subscribed: Array<{ name: string }>;
    unread_msgs: { count: number; streams: Array<{ stream_id: number; unread_message_ids: number[] }> };
  };

type SubscriptionEvent = PayloadOf<typeof messagingEvents.subscriptionChanged>;
type StreamDeleteEvent = PayloadOf<typeof messagingEvents.streamDeleted>;
/** Client events messaging published, up to a marker written after the calls under test. */
async function publishedUntilNow(recorder: DomainEventRecorder) {
  const events = await recorder.before(await marker(org));
  recorder.stop();
  const subscription = events.filter(
    (e): e is SubscriptionEvent & typeof e => messagingEvents.subscriptionChanged.payload.safeParse(e).success,
  );
  const streamDeleted = events.filter(
    (e): e is StreamDeleteEvent & typeof e => messagingEvents.streamDeleted.payload.safeParse(e).success,
  );
  const op = (name: string) => subscription.filter((e) => e.event.op === name);
  return { subscription, streamDeleted, op };
}
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const ids = (...users: TestUser[]) => sorted(users.map((u) => u.userId));

describe("DELETE /users/me/subscriptions", () => {
  it("unsubscribes oneself; removed / not_removed; the user gets remove, peers peer_remove", async () => {
    const plaza = await fresh([alice, bob, guest]);
    const recorder = await recordDomainEvents(org, "messaging");
    expect(await unsubscribe(bob, { subscriptions: [plaza.name] })).toEqual({
      result: "success",
      msg: "",
      removed: [plaza.name],
      not_removed: [],
    });
    expect(await unsubscribe(bob, { subscriptions: [` ${plaza.name} `] })).toEqual({
      result: "success",
      msg: "",
      removed: [],
      not_removed: [plaza.name],
    });
    expect(await subscribedNames(bob)).not.toContain(plaza.name);
    expect(await subscribersOf(plaza)).toEqual(ids(alice, guest));

    const { op, streamDeleted } = await publishedUntilNow(recorder);
    expect(op("remove")).toEqual([
      {
        realmId: org.realm.id,
        userIds: [bob.userId],
        event: { type: "subscription", op: "remove", subscriptions: [{ name: plaza.name, stream_id: plaza.id }] },
      },
    ]);
    // a public channel: every other active non-guest user, and its guest subscribers
    expect(op("peer_remove")).toEqual([
      {
        realmId: org.realm.id,
        userIds: ids(owner, admin, mod, alice, carol, guest),
        event: { type: "subscription", op: "peer_remove", stream_ids: [plaza.id], user_ids: [bob.userId] },
      },
    ]);
    // bob may still see the public channel
    expect(streamDeleted).toEqual([]);

    const state = await registerState(bob);
    expect(state.subscriptions.map((s) => s.name)).not.toContain(plaza.name);
    expect(state.unsubscribed.map((s) => s.name)).toContain(plaza.name);
    expect(state.never_subscribed.map((s) => s.name)).not.toContain(plaza.name);
  });

  it("a private channel: peer_remove only to its subscribers and administrators; the user loses it (stream delete)", async () => {
    const vault = await fresh([alice, bob, carol], { invite_only: true });
    const recorder = await recordDomainEvents(org, "messaging");
    expect(await unsubscribe(carol, { subscriptions: [vault.name] })).toMatchObject({ removed: [vault.name] });
    const { op, streamDeleted } = await publishedUntilNow(recorder);
    expect(op("remove").map((e) => e.userIds)).toEqual([[carol.userId]]);
    expect(op("peer_remove").map((e) => e.userIds)).toEqual([ids(owner, admin, alice, bob)]);
    expect(streamDeleted).toEqual([
      {
        realmId: org.realm.id,
        userIds: [carol.userId],
        event: { type: "stream", op: "delete", streams: [{ stream_id: vault.id }], stream_ids: [vault.id] },
      },
    ]);
    const state = await registerState(carol);
    for (const list of [state.subscriptions, state.unsubscribed, state.never_subscribed]) {
      expect(list.map((s) => s.name)).not.toContain(vault.name);
    }
  });

  it("marks the channel's unread messages read: register's unread_msgs no longer counts them", async () => {
    const news = await fresh([alice, bob]);
    const sent = await org.call(
      messaging.sendMessage,
      { type: "stream", to: news.name, topic: "t", content: "unread for bob" },
      alice,
    );
    // unread for bob too: Notification Bot's "channel events" message that opens the channel
    const opening = (await org.call(messaging.getStreamById, { stream_id: news.id }, alice)).stream.first_message_id!;
    const before = await registerState(bob);
    expect(before.unread_msgs.streams.filter((s) => s.stream_id === news.id)).toEqual([
      expect.objectContaining({ topic: "channel events", unread_message_ids: [opening] }),
      expect.objectContaining({ topic: "t", unread_message_ids: [sent.id] }),
    ]);
    const reader = await EventReader.register(org.api(bob), { event_types: ["subscription", "update_message_flags"] });
    await unsubscribe(bob, { subscriptions: [news.name] });
    const events = await reader.until((es) => es.some((e) => e.type === "update_message_flags"));
    expect(events.find((e) => e.type === "subscription")).toEqual({
      id: expect.any(Number),
      type: "subscription",
      op: "remove",
      subscriptions: [{ name: news.name, stream_id: news.id }],
    });
    expect(events.find((e) => e.type === "update_message_flags")).toEqual({
      id: expect.any(Number),
      type: "update_message_flags",
      op: "add",
      operation: "add",
      flag: "read",
      messages: [opening, sent.id],
      all: false,
    });
    const after = await registerState(bob);
    expect(after.unread_msgs.streams.filter((s) => s.stream_id === news.id)).toEqual([]);
    expect(after.unread_msgs.count).toBe(before.unread_msgs.count - 2);
  });

  it("removing others: administrators, and members of the channel's can_remove_subscribers_group", async () => {
    // default can_remove_subscribers_group: administrators (and the creator, alice, administers the channel)
    const plaza = await fresh([alice, bob, carol, mod, guest]);
    for (const user of [mod, bob, guest]) {
      await expectZulipError(
        unsubscribe(user, { subscriptions: [plaza.name], principals: [carol.userId] }),
        badRequestError("Insufficient permission"),
      );
    }
    expect(await subscribersOf(plaza)).toEqual(ids(alice, bob, carol, mod, guest));
    expect(await unsubscribe(admin, { subscriptions: [plaza.name], principals: [carol.userId] })).toMatchObject({
      removed: [plaza.name],
    });
    expect(await unsubscribe(alice, { subscriptions: [plaza.name], principals: [mod.userId] })).toMatchObject({
      removed: [plaza.name],
    });
    expect(await unsubscribe(owner, { subscriptions: [plaza.name], principals: [bob.email] })).toMatchObject({
      removed: [plaza.name],
    });
    // oneself, named in principals, needs no permission
    expect(await unsubscribe(guest, { subscriptions: [plaza.name], principals: [guest.userId] })).toMatchObject({
      removed: [plaza.name],
    });

    // a member in the group may; one outside it may not
    const club = await fresh([alice, bob, carol], { can_remove_subscribers_group: onlyMembers(bob) });
    await expectZulipError(
      unsubscribe(carol, { subscriptions: [club.name], principals: [alice.userId] }),
      badRequestError("Insufficient permission"),
    );
    expect(await unsubscribe(bob, { subscriptions: [club.name], principals: [alice.userId, carol.userId] })).toEqual({
      result: "success",
      msg: "",
      removed: [club.name, club.name],
      not_removed: [],
    });
    expect(await subscribersOf(club)).toEqual(ids(bob));
  });

  it("private channels: administrators may remove anyone; group members only if they may see the channel", async () => {
    const vault = await fresh([alice, bob], {
      invite_only: true,
      can_remove_subscribers_group: onlyMembers(carol, bob),
    });
    // carol is in the group but may not see the channel
    await expectZulipError(
      unsubscribe(carol, { subscriptions: [vault.name], principals: [bob.userId] }),
      badRequestError("Insufficient permission"),
    );
    expect(await unsubscribe(bob, { subscriptions: [vault.name], principals: [alice.userId] })).toMatchObject({
      removed: [vault.name],
    });
    // an administrator, not subscribed
    expect(await unsubscribe(admin, { subscriptions: [vault.name], principals: [bob.userId] })).toMatchObject({
      removed: [vault.name],
    });
  });

  it("errors: unknown channels (after the permission check), principals, names; nothing changes", async () => {
    const plaza = await fresh([alice, bob]);
    await expectZulipError(
      unsubscribe(alice, { subscriptions: [plaza.name, "nope", "nada"] }),
      badRequestError("Channel(s) (nope, nada) do not exist"),
    );
    await expectZulipError(
      unsubscribe(bob, { subscriptions: [plaza.name, "nope"], principals: [alice.userId] }),
      badRequestError("Insufficient permission"),
    );
    await expectZulipError(
      unsubscribe(admin, { subscriptions: [plaza.name], principals: [999999] }),
      badRequestError("Invalid user ID: 999999"),
    );
    await expectZulipError(
      unsubscribe(admin, { subscriptions: [plaza.name], principals: ["nobody@example.invalid"] }),
      badRequestError("No such user"),
    );
    await expectZulipError(
      unsubscribe(alice, { subscriptions: ["  "] }),
      badRequestError("Channel name can't be empty."),
    );
    expect(await subscribersOf(plaza)).toEqual(ids(alice, bob));
  });
});

describe("POST /users/me/subscriptions/properties", () => {
  it("changes each property; GET shows it; one update event per property, only to the user", async () => {
    const plaza = await fresh([alice, bob]);
    const recorder = await recordDomainEvents(org, "messaging");
    const data = [
      { stream_id: plaza.id, property: "color", value: "#abcdef" },
      { stream_id: plaza.id, property: "is_muted", value: true },
      { stream_id: plaza.id, property: "pin_to_top", value: true },
      { stream_id: plaza.id, property: "desktop_notifications", value: true },
      { stream_id: plaza.id, property: "audible_notifications", value: false },
      { stream_id: plaza.id, property: "push_notifications", value: true },
      { stream_id: plaza.id, property: "email_notifications", value: false },
      { stream_id: plaza.id, property: "wildcard_mentions_notify", value: true },
    ];
    expect(await setProperties(bob, { subscription_data: data })).toEqual({ result: "success", msg: "" });
    const mine = (await subscriptionsOf(bob)).find((s) => s.stream_id === plaza.id)!;
    expect(mine).toMatchObject({
      color: "#abcdef",
      is_muted: true,
      in_home_view: false,
      pin_to_top: true,
      desktop_notifications: true,
      audible_notifications: false,
      push_notifications: true,
      email_notifications: false,
      wildcard_mentions_notify: true,
    });
    // alice's subscription is untouched: null = her defaults
    expect((await subscriptionsOf(alice)).find((s) => s.stream_id === plaza.id)).toMatchObject({
      is_muted: false,
      pin_to_top: false,
      desktop_notifications: null,
      wildcard_mentions_notify: null,
    });

    // the old inverted name
    await setProperties(bob, { subscription_data: [{ stream_id: plaza.id, property: "in_home_view", value: true }] });
    expect((await subscriptionsOf(bob)).find((s) => s.stream_id === plaza.id)).toMatchObject({
      is_muted: false,
      in_home_view: true,
    });

    const { op } = await publishedUntilNow(recorder);
    const updates = op("update");
    expect(updates.every((e) => e.userIds.length === 1 && e.userIds[0] === bob.userId)).toBe(true);
    expect(updates.map((e) => e.event)).toEqual(
      [
        ["color", "#abcdef"],
        ["in_home_view", false],
        ["is_muted", true],
        ["pin_to_top", true],
        ["desktop_notifications", true],
        ["audible_notifications", false],
        ["push_notifications", true],
        ["email_notifications", false],
        ["wildcard_mentions_notify", true],
        ["in_home_view", true],
        ["is_muted", false],
      ].map(([property, value]) => ({ type: "subscription", op: "update", stream_id: plaza.id, property, value })),
    );
  });

  it("errors, each before anything changes", async () => {
    const plaza = await fresh([alice, bob]);
    const vault = await fresh([alice], { invite_only: true });
    const other = await fresh([alice]);
    const pin = { stream_id: plaza.id, property: "pin_to_top", value: true };
    const cases: Array<[Array<{ stream_id: number; property: string; value: string | boolean }>, string]> = [
      [[pin, { stream_id: plaza.id, property: "nickname", value: "x" }], "Unknown subscription property: nickname"],
      [[pin, { stream_id: plaza.id, property: "is_muted", value: "yes" }], "is_muted is not a boolean"],
      [[pin, { stream_id: plaza.id, property: "color", value: "blue" }], "color is not a valid hex color code"],
      [[pin, { stream_id: plaza.id, property: "color", value: true }], "color is not a valid hex color code"],
      [[{ ...pin, stream_id: vault.id }], "Invalid channel ID"],
      [[{ ...pin, stream_id: 999999 }], "Invalid channel ID"],
      [[{ ...pin, stream_id: other.id }], `Not subscribed to channel ID ${other.id}`],
    ];
    for (const [subscription_data, msg] of cases) {
      await expectZulipError(setProperties(bob, { subscription_data }), badRequestError(msg));
    }
    // the checks of all changes come before any change
    expect((await subscriptionsOf(bob)).find((s) => s.stream_id === plaza.id)!.pin_to_top).toBe(false);
  });
});

describe("PATCH /users/me/subscriptions", () => {
  it("subscribes to `add` and unsubscribes from `delete` in one call", async () => {
    const leave = await fresh([bob]);
    const join = await fresh([alice]);
    expect(
      await org.call(
        messaging.updateSubscriptions,
        { add: [{ name: join.name, color: "#123456" }], delete: [leave.name] },
        bob,
      ),
    ).toEqual({
      result: "success",
      msg: "",
      subscribed: { [bob.userId]: [join.name] },
      already_subscribed: {},
      removed: [leave.name],
      not_removed: [],
    });
    const mine = await subscriptionsOf(bob);
    expect(mine.find((s) => s.name === join.name)?.color).toBe("#123456");
    expect(mine.map((s) => s.name)).not.toContain(leave.name);
    await expectZulipError(
      org.call(messaging.updateSubscriptions, {}, bob),
      badRequestError('Nothing to do. Specify at least one of "add" or "delete".'),
    );
  });
});

describe("POST /users/me/subscriptions: permissions", () => {
  it("guests may not use it at all", async () => {
    const plaza = await fresh([alice], { is_web_public: false });
    await expectZulipError(
      subscribe(guest, { subscriptions: [{ name: plaza.name }] }),
      badRequestError("Not allowed for guest users"),
    );
    expect(await subscribersOf(plaza)).toEqual(ids(alice));
  });

  it("can_subscribe_group lets its members join a private channel; others are refused or listed unauthorized", async () => {
    const club = await fresh([alice], { invite_only: true, can_subscribe_group: onlyMembers(carol) });
    await expectZulipError(
      subscribe(bob, { subscriptions: [{ name: club.name }] }),
      badRequestError(`Unable to access channel (${club.name}).`),
    );
    expect(await subscribe(bob, { subscriptions: [{ name: club.name }], authorization_errors_fatal: false })).toEqual({
      result: "success",
      msg: "",
      subscribed: {},
      already_subscribed: {},
      unauthorized: [club.name],
      new_subscription_messages_sent: true,
    });

    const recorder = await recordDomainEvents(org, "messaging");
    expect(await subscribe(carol, { subscriptions: [{ name: club.name }] })).toEqual({
      result: "success",
      msg: "",
      subscribed: { [carol.userId]: [club.name] },
      already_subscribed: {},
      new_subscription_messages_sent: true,
    });
    const { op } = await publishedUntilNow(recorder);
    expect(op("add").map((e) => e.userIds)).toEqual([[carol.userId]]);
    // a private channel's new subscriber is told to its subscribers and administrators only
    expect(op("peer_add").map((e) => e.userIds)).toEqual([ids(owner, admin, alice)]);
    expect(await subscribersOf(club)).toEqual(ids(alice, carol));
  });

  it("can_add_subscribers_group: its members may read a private channel and add others to it", async () => {
    const club = await fresh([alice], { invite_only: true, can_add_subscribers_group: onlyMembers(carol) });
    expect(await subscribe(carol, { subscriptions: [{ name: club.name }], principals: [bob.userId] })).toMatchObject({
      subscribed: { [bob.userId]: [club.name] },
    });
    await expectZulipError(
      subscribe(mod, { subscriptions: [{ name: club.name }], principals: [carol.userId] }),
      badRequestError(`Unable to access channel (${club.name}).`),
    );
    // an administrator may see but not read it: no subscribing through it
    await expectZulipError(
      subscribe(admin, { subscriptions: [{ name: club.name }], principals: [carol.userId] }),
      badRequestError(`Unable to access channel (${club.name}).`),
    );
    expect(await subscribersOf(club)).toEqual(ids(alice, bob));
  });

  it("creates missing channels with invite_only; their stream create event reaches subscribers and administrators", async () => {
    const recorder = await recordDomainEvents(org, "messaging");
    const res = await subscribe(bob, {
      subscriptions: [{ name: "bob-secret", color: "#0a0b0c" }],
      principals: [bob.userId, carol.userId],
      invite_only: true,
    });
    expect(res).toEqual({
      result: "success",
      msg: "",
      subscribed: { [bob.userId]: ["bob-secret"], [carol.userId]: ["bob-secret"] },
      already_subscribed: {},
      new_subscription_messages_sent: true,
    });
    const events = await recorder.before(await marker(org));
    recorder.stop();
    const created = events.find((e) => messagingEvents.streamCreated.payload.safeParse(e).success) as PayloadOf<
      typeof messagingEvents.streamCreated
    >;
    expect(created.event.streams[0]).toMatchObject({ name: "bob-secret", invite_only: true });
    expect(created.userIds).toEqual(ids(owner, admin, bob, carol));
    const mine = (await subscriptionsOf(carol)).find((s) => s.name === "bob-secret")!;
    expect(mine.color).toBe("#0a0b0c");
    await expectZulipError(
      subscribe(bob, { subscriptions: [{ name: "x", color: "red" }] }),
      badRequestError("add.color is not a valid hex color code"),
    );
  });
});
