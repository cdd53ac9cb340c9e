import { messaging, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as badRequest, expectZulipError } from "../../../test/support/call";
import { recordDomainEvents } from "../../../test/support/domain-events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { clientEvents, createChannel as createChannelAs, marker } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let admin: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  guest = await org.makeUser("Guest", 600, "Guest");
  admin = await org.makeUser("Admin", 200, "Admin");
});
afterAll(() => org?.stop());

type CreateParams = ParamsIn<typeof messaging.createChannel>;
const create = (user: Credentials, params: CreateParams) => org.call(messaging.createChannel, params, user);
const createChannel = (user: Credentials, name: string, subscribers: number[], extra: Partial<CreateParams> = {}) =>
  createChannelAs(org, user, name, subscribers, extra);
const getStream = async (user: Credentials, streamId: number) =>
  (await org.call(messaging.getStreamById, { stream_id: streamId }, user)).stream;
const getStreams = async (user: Credentials, params: ParamsIn<typeof messaging.getStreams> = {}) =>
  (await org.call(messaging.getStreams, params, user)).streams;
const subscribe = (user: Credentials, params: ParamsIn<typeof messaging.subscribe>) =>
  org.call(messaging.subscribe, params, user);
const getSubscriptions = async (user: Credentials, params: ParamsIn<typeof messaging.getSubscriptions> = {}) =>
  (await org.call(messaging.getSubscriptions, params, user)).subscriptions;

describe("POST /channels/create", () => {
  it("creates a public channel, subscribes the given users, and GET /streams/{id} shows it", async () => {
    const recorder = await recordDomainEvents(org, "messaging");
    const res = await create(alice, {
      name: "  design  ",
      description: "All about **design** <b>",
      subscribers: [alice.userId, bob.userId],
    });
    expect(Object.keys(res).sort()).toEqual(["id", "msg", "result"]);
    const stream = await getStream(bob, res.id);
    expect(stream).toEqual({
      stream_id: res.id,
      name: "design",
      is_archived: false,
      description: "All about **design** <b>",
      rendered_description: "<p>All about <strong>design</strong> &lt;b&gt;</p>",
      date_created: expect.any(Number),
      creator_id: alice.userId,
      invite_only: false,
      is_web_public: false,
      stream_post_policy: 1,
      message_retention_days: null,
      history_public_to_subscribers: true,
      topics_policy: "inherit",
      // Notification Bot's "channel events" message opens every new channel
      first_message_id: expect.any(Number),
      is_recently_active: true,
      is_announcement_only: false,
      stream_weekly_traffic: null,
      can_add_subscribers_group: 8,
      can_remove_subscribers_group: 2,
      can_administer_channel_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_send_message_group: 6,
      can_subscribe_group: 8,
    });
    expect(Math.abs(stream.date_created - Date.now() / 1000)).toBeLessThan(60);

    const events = clientEvents(await recorder.before(await marker(org)));
    recorder.stop();
    const created = events.find((e) => e.event.type === "stream")!;
    // told before Notification Bot's opening message was sent
    expect(created.event).toEqual({ type: "stream", op: "create", streams: [{ ...stream, first_message_id: null }] });
    // a public channel: every active user who may see it, guests excluded
    expect(created.userIds).toEqual(expect.arrayContaining([org.owner.userId, alice.userId, bob.userId, admin.userId]));
    expect(created.userIds).not.toContain(guest.userId);
    const adds = events.filter((e) => e.event.type === "subscription" && e.event.op === "add");
    expect(adds.map((e) => e.userIds).sort()).toEqual([[alice.userId], [bob.userId]].sort());
    const aliceAdd = adds.find((e) => (e.userIds as number[])[0] === alice.userId)!;
    expect(aliceAdd.event).toMatchObject({
      subscriptions: [
        expect.objectContaining({ stream_id: res.id, name: "design", subscribers: [alice.userId, bob.userId] }),
      ],
    });
    const peer = events.find((e) => e.event.type === "subscription" && e.event.op === "peer_add")!;
    expect(peer.event).toEqual({
      type: "subscription",
      op: "peer_add",
      stream_ids: [res.id],
      user_ids: [alice.userId, bob.userId].sort((a, b) => a - b),
    });
    expect(peer.userIds).toContain(org.owner.userId);
    expect(peer.userIds).not.toContain(alice.userId);
  });

  it("stores every group setting as given and returns those Zulip's channel object has", async () => {
    const anon = { direct_members: [bob.userId], direct_subgroups: [2] };
    const id = await createChannel(alice, "groups", [alice.userId], {
      can_add_subscribers_group: 5,
      can_remove_subscribers_group: anon,
      can_administer_channel_group: 2,
      can_send_message_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_subscribe_group: 6,
      can_delete_any_message_group: 2,
      can_delete_own_message_group: 6,
      can_move_messages_out_of_channel_group: 3,
      can_move_messages_within_channel_group: 3,
      can_resolve_topics_group: 5,
    });
    expect(await getStream(alice, id)).toMatchObject({
      can_add_subscribers_group: 5,
      can_remove_subscribers_group: anon,
      can_administer_channel_group: 2,
      can_send_message_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_subscribe_group: 6,
    });
  });

  it("private channel: protected history by default; hidden from non-subscribers", async () => {
    const id = await createChannel(alice, "secret", [alice.userId], { invite_only: true });
    expect(await getStream(alice, id)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
    await expectZulipError(getStream(bob, id), badRequest("Invalid channel ID"));
    // administrators see private channels' metadata
    await getStream(admin, id);
    const shared = await createChannel(alice, "secret-shared", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    expect((await getStream(alice, shared)).history_public_to_subscribers).toBe(true);
    // public channels always share history
    const pub = await createChannel(alice, "open-history", [], { history_public_to_subscribers: false });
    expect((await getStream(alice, pub)).history_public_to_subscribers).toBe(true);
  });

  it("refuses bad input with Zulip's errors", async () => {
    const post = (params: Partial<CreateParams> & { name: string }) =>
      create(alice, { subscribers: [alice.userId], ...params });
    await createChannel(alice, "taken", [alice.userId]);
    await expectZulipError(post({ name: "TAKEN" }), {
      status: 400,
      code: "CHANNEL_ALREADY_EXISTS",
      msg: "Channel 'TAKEN' already exists",
      channel_name: "TAKEN",
    });
    await expectZulipError(post({ name: "   " }), badRequest("Channel name can't be empty."));
    await expectZulipError(post({ name: "x".repeat(61) }), badRequest("Channel name too long (limit: 60 characters)."));
    await expectZulipError(
      post({ name: "ok-desc", description: "d".repeat(1025) }),
      badRequest("description is too long (limit: 1024 characters)"),
    );
    await expectZulipError(
      post({ name: "bad\u0001name" }),
      badRequest("Invalid character in channel name, at position 4."),
    );
    // Zulip's check_string_is_printable: positions in code points, non-characters refused too
    await expectZulipError(post({ name: "🙂\u0001" }), badRequest("Invalid character in channel name, at position 2."));
    await expectZulipError(post({ name: "a\ufdd0" }), badRequest("Invalid character in channel name, at position 2."));
    // A parameter the contract's types require, left out: raw HTTP, as a client could send it.
    await expectZulipError(org.api(alice).post("/channels/create", { name: "nosubs" }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'subscribers' argument",
      var_name: "subscribers",
    });
    await expectZulipError(
      post({ name: "ghosts", subscribers: [alice.userId, 999999] }),
      badRequest("Invalid user ID: 999999"),
    );
    await expectZulipError(
      post({ name: "wp", is_web_public: true }),
      badRequest("Web-public channels are not enabled."),
    );
    await expectZulipError(
      post({ name: "pd", invite_only: true, is_default_stream: true }),
      badRequest("A default channel cannot be private."),
    );
    await expectZulipError(post({ name: "tp", topics_policy: "sometimes" }), badRequest("Invalid topics_policy"));
    await expectZulipError(post({ name: "folder", folder_id: 4242 }), badRequest("Invalid channel folder ID"));
    await expectZulipError(post({ name: "retention", message_retention_days: 30 }), {
      status: 400,
      code: "UNAUTHORIZED_PRINCIPAL",
      msg: "Must be an organization owner",
    });
    // none of the refused channels exists
    const streams = await getStreams(org.owner);
    expect(streams.map((s) => s.name)).not.toEqual(expect.arrayContaining(["ghosts"]));
  });

  it("options: folder, retention, topics policy, default channel", async () => {
    const { channel_folder_id } = await org.call(
      realmConfig.createChannelFolder,
      { name: "Team", description: "" },
      org.owner,
    );
    const id = await createChannel(org.owner, "configured", [org.owner.userId], {
      folder_id: channel_folder_id,
      message_retention_days: 30,
      topics_policy: "disable_empty_topic",
      is_default_stream: true,
    });
    expect(await getStream(org.owner, id)).toMatchObject({
      message_retention_days: 30,
      topics_policy: "disable_empty_topic",
    });
    const unlimited = await createChannel(org.owner, "forever", [], { message_retention_days: "unlimited" });
    expect((await getStream(org.owner, unlimited)).message_retention_days).toBe(-1);
    const streams = await getStreams(bob, { include_default: true });
    expect(streams.find((s) => s.stream_id === id)!.is_default).toBe(true);
  });

  it("permissions: guests cannot create channels; web-public needs the organization's settings", async () => {
    await expectZulipError(create(guest, { name: "g", subscribers: [] }), badRequest("Insufficient permission"));
    await create(admin, { name: "by-admin", subscribers: [] });
    await create(bob, { name: "by-member", subscribers: [], invite_only: true });
  });
});

describe("GET /streams and GET /streams/{id}", () => {
  it("lists public channels and the user's private ones, sorted by name", async () => {
    const priv = await createChannel(bob, "bob-private", [bob.userId], { invite_only: true });
    const names = async (u: TestUser) => (await getStreams(u)).map((s) => s.name);
    const bobs = await names(bob);
    expect(bobs).toContain("bob-private");
    expect(bobs).toContain("design");
    expect(bobs).toEqual([...bobs].sort((a, b) => a.localeCompare(b)));
    expect(await names(alice)).not.toContain("bob-private");
    // guests see only their subscriptions
    expect(await names(guest)).toEqual([]);
    const all = await getStreams(admin, { include_all: true });
    expect(all.map((s) => s.stream_id)).toContain(priv);
  });

  it("unknown ids → Invalid channel ID", async () => {
    await expectZulipError(getStream(alice, 987654), badRequest("Invalid channel ID"));
  });
});

describe("subscriptions", () => {
  it("POST /users/me/subscriptions creates missing channels and subscribes; GET lists with subscribers", async () => {
    const recorder = await recordDomainEvents(org, "messaging");
    const res = await subscribe(bob, { subscriptions: [{ name: "design" }, { name: "fresh", description: "New" }] });
    expect(res.subscribed).toEqual({ [String(bob.userId)]: ["fresh"] });
    expect(res.already_subscribed).toEqual({ [String(bob.userId)]: ["design"] });
    const events = clientEvents(await recorder.before(await marker(org)));
    recorder.stop();
    expect(events.flatMap((e) => (e.event.type === "stream" ? [e.event.streams[0]!.name] : []))).toEqual(["fresh"]);

    const subscriptions = await getSubscriptions(bob, { include_subscribers: true });
    const fresh = subscriptions.find((s) => s.name === "fresh")!;
    expect(fresh).toMatchObject({
      description: "New",
      rendered_description: "<p>New</p>",
      subscribers: [bob.userId],
      is_muted: false,
      in_home_view: true,
      pin_to_top: false,
      invite_only: false,
    });
    expect(fresh.color).toMatch(/^#[0-9a-f]{6}$/);
    const colors = subscriptions.map((s) => s.color);
    expect(new Set(colors).size).toBe(colors.length);
    const plain = await getSubscriptions(bob);
    expect(plain[0]!.subscribers).toBeUndefined();
  });

  it("principals subscribe others (ids or emails); private channels need access", async () => {
    const res = await subscribe(alice, { subscriptions: [{ name: "design" }], principals: [guest.email] });
    expect(res.subscribed).toEqual({ [String(guest.userId)]: ["design"] });
    await expectZulipError(
      subscribe(alice, { subscriptions: [{ name: "bob-private" }] }),
      badRequest("Unable to access channel (bob-private)."),
    );
    const soft = await subscribe(alice, {
      subscriptions: [{ name: "bob-private" }, { name: "design" }],
      authorization_errors_fatal: false,
    });
    expect(soft).toMatchObject({
      subscribed: {},
      already_subscribed: { [alice.userId]: ["design"] },
      unauthorized: ["bob-private"],
    });
    await expectZulipError(
      subscribe(guest, { subscriptions: [{ name: "design" }], principals: [bob.userId] }),
      badRequest("Not allowed for guest users"),
    );
    await expectZulipError(
      subscribe(alice, { subscriptions: [{ name: "design" }], principals: [424242] }),
      badRequest("Invalid user ID: 424242"),
    );
    expect((await getSubscriptions(guest)).map((s) => s.name)).toEqual(["design"]);
  });
});
