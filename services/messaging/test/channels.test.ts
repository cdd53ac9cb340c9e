import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { captureEvents, createChannel } from "./helpers";
import { makeUser, type TestUser } from "../../../test/support/users";

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let admin: TestUser;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  alice = await makeUser(sys, "Alice", 400, "Alice");
  bob = await makeUser(sys, "Bob", 400, "Bob");
  guest = await makeUser(sys, "Guest", 600, "Guest");
  admin = await makeUser(sys, "Admin", 200, "Admin");
});
afterAll(() => sys?.stop());

const err = (status: number, code: string, msg: string) => ({ status, body: { result: "error", code, msg } });
const pick = (res: { status: number; body: Record<string, unknown> }) => ({
  status: res.status,
  body: { result: res.body.result, code: res.body.code, msg: res.body.msg },
});

describe("POST /channels/create", () => {
  it("creates a public channel, subscribes the given users, and GET /streams/{id} shows it", async () => {
    const capture = captureEvents(sys);
    const res = ok(
      await sys.api(alice).post("/channels/create", {
        name: "  design  ",
        description: "All about **design** <b>",
        subscribers: [alice.userId, bob.userId],
      }),
    );
    expect(Object.keys(res).sort()).toEqual(["id", "msg", "result"]);
    const { stream } = ok(await sys.api(bob).get(`/streams/${res.id}`));
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
      first_message_id: null,
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

    const events = await capture.take();
    capture.stop();
    const create = events.find((e) => e.event.type === "stream")!;
    expect(create.event).toEqual({ type: "stream", op: "create", streams: [stream] });
    // a public channel: every active user who may see it, guests excluded
    expect(create.userIds).toEqual(expect.arrayContaining([sys.owner.userId, alice.userId, bob.userId, admin.userId]));
    expect(create.userIds).not.toContain(guest.userId);
    const adds = events.filter((e) => e.event.type === "subscription" && e.event.op === "add");
    expect(adds.map((e) => e.userIds).sort()).toEqual([[alice.userId], [bob.userId]].sort());
    const aliceAdd = adds.find((e) => (e.userIds as number[])[0] === alice.userId)!;
    expect(aliceAdd.event.subscriptions).toEqual([
      expect.objectContaining({ stream_id: res.id, name: "design", subscribers: [alice.userId, bob.userId] }),
    ]);
    const peer = events.find((e) => e.event.op === "peer_add")!;
    expect(peer.event).toEqual({
      type: "subscription",
      op: "peer_add",
      stream_ids: [res.id],
      user_ids: [alice.userId, bob.userId].sort((a, b) => a - b),
    });
    expect(peer.userIds).toContain(sys.owner.userId);
    expect(peer.userIds).not.toContain(alice.userId);
  });

  it("stores every group setting as given and returns those Zulip's channel object has", async () => {
    const anon = { direct_members: [bob.userId], direct_subgroups: [2] };
    const id = await createChannel(sys, alice, "groups", [alice.userId], {
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
    const { stream } = ok(await sys.api(alice).get(`/streams/${id}`));
    expect(stream).toMatchObject({
      can_add_subscribers_group: 5,
      can_remove_subscribers_group: anon,
      can_administer_channel_group: 2,
      can_send_message_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_subscribe_group: 6,
    });
  });

  it("private channel: protected history by default; hidden from non-subscribers", async () => {
    const id = await createChannel(sys, alice, "secret", [alice.userId], { invite_only: true });
    const { stream } = ok(await sys.api(alice).get(`/streams/${id}`));
    expect(stream).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
    expect(pick(await sys.api(bob).get(`/streams/${id}`))).toEqual(err(400, "BAD_REQUEST", "Invalid channel ID"));
    // administrators see private channels' metadata
    ok(await sys.api(admin).get(`/streams/${id}`));
    const shared = await createChannel(sys, alice, "secret-shared", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    expect(ok(await sys.api(alice).get(`/streams/${shared}`)).stream.history_public_to_subscribers).toBe(true);
    // public channels always share history
    const pub = await createChannel(sys, alice, "open-history", [], { history_public_to_subscribers: false });
    expect(ok(await sys.api(alice).get(`/streams/${pub}`)).stream.history_public_to_subscribers).toBe(true);
  });

  it("refuses bad input with Zulip's errors", async () => {
    const post = (params: Record<string, unknown>) =>
      sys.api(alice).post("/channels/create", { subscribers: [alice.userId], ...params });
    await createChannel(sys, alice, "taken", [alice.userId]);
    expect((await post({ name: "TAKEN" })).body).toEqual({
      result: "error",
      code: "CHANNEL_ALREADY_EXISTS",
      msg: "Channel 'TAKEN' already exists",
      channel_name: "TAKEN",
    });
    expect(pick(await post({ name: "   " }))).toEqual(err(400, "BAD_REQUEST", "Channel name can't be empty."));
    expect(pick(await post({ name: "x".repeat(61) }))).toEqual(
      err(400, "BAD_REQUEST", "Channel name too long (limit: 60 characters)."),
    );
    expect(pick(await post({ name: "ok-desc", description: "d".repeat(1025) }))).toEqual(
      err(400, "BAD_REQUEST", "description is too long (limit: 1024 characters)"),
    );
    expect(pick(await post({ name: "bad\u0001name" }))).toEqual(
      err(400, "BAD_REQUEST", "Invalid character in channel name, at position 4."),
    );
    expect(pick(await sys.api(alice).post("/channels/create", { name: "nosubs" }))).toEqual(
      err(400, "REQUEST_VARIABLE_MISSING", "Missing 'subscribers' argument"),
    );
    expect(pick(await post({ name: "ghosts", subscribers: [alice.userId, 999999] }))).toEqual(
      err(400, "BAD_REQUEST", "Invalid user ID: 999999"),
    );
    expect(pick(await post({ name: "wp", is_web_public: true }))).toEqual(
      err(400, "BAD_REQUEST", "Web-public channels are not enabled."),
    );
    expect(pick(await post({ name: "pd", invite_only: true, is_default_stream: true }))).toEqual(
      err(400, "BAD_REQUEST", "A default channel cannot be private."),
    );
    expect(pick(await post({ name: "tp", topics_policy: "sometimes" }))).toEqual(
      err(400, "BAD_REQUEST", "Invalid topics_policy"),
    );
    expect(pick(await post({ name: "folder", folder_id: 4242 }))).toEqual(
      err(400, "BAD_REQUEST", "Invalid channel folder ID"),
    );
    expect(pick(await post({ name: "retention", message_retention_days: 30 }))).toEqual(
      err(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner"),
    );
    // none of the refused channels exists
    const { streams } = ok(await sys.api(sys.owner).get("/streams"));
    expect(streams.map((s: { name: string }) => s.name)).not.toEqual(expect.arrayContaining(["ghosts"]));
  });

  it("options: folder, retention, topics policy, default channel", async () => {
    const { channel_folder_id } = ok(
      await sys.api(sys.owner).post("/channel_folders/create", { name: "Team", description: "" }),
    );
    const id = await createChannel(sys, sys.owner, "configured", [sys.owner.userId], {
      folder_id: channel_folder_id,
      message_retention_days: 30,
      topics_policy: "disable_empty_topic",
      is_default_stream: true,
    });
    const { stream } = ok(await sys.api(sys.owner).get(`/streams/${id}`));
    expect(stream).toMatchObject({ message_retention_days: 30, topics_policy: "disable_empty_topic" });
    const unlimited = await createChannel(sys, sys.owner, "forever", [], { message_retention_days: "unlimited" });
    expect(ok(await sys.api(sys.owner).get(`/streams/${unlimited}`)).stream.message_retention_days).toBe(-1);
    const { streams } = ok(await sys.api(bob).get("/streams", { include_default: true }));
    expect(streams.find((s: { stream_id: number }) => s.stream_id === id).is_default).toBe(true);
  });

  it("permissions: guests cannot create channels; web-public needs the organization's settings", async () => {
    expect(pick(await sys.api(guest).post("/channels/create", { name: "g", subscribers: [] }))).toEqual(
      err(400, "BAD_REQUEST", "Insufficient permission"),
    );
    ok(await sys.api(admin).post("/channels/create", { name: "by-admin", subscribers: [] }));
    ok(await sys.api(bob).post("/channels/create", { name: "by-member", subscribers: [], invite_only: true }));
  });
});

describe("GET /streams and GET /streams/{id}", () => {
  it("lists public channels and the user's private ones, sorted by name", async () => {
    const priv = await createChannel(sys, bob, "bob-private", [bob.userId], { invite_only: true });
    const names = (u: TestUser) =>
      sys
        .api(u)
        .get("/streams")
        .then((r) => ok(r).streams.map((s: { name: string }) => s.name) as string[]);
    const bobs = await names(bob);
    expect(bobs).toContain("bob-private");
    expect(bobs).toContain("design");
    expect(bobs).toEqual([...bobs].sort((a, b) => a.localeCompare(b)));
    expect(await names(alice)).not.toContain("bob-private");
    // guests see only their subscriptions
    expect(await names(guest)).toEqual([]);
    const all = ok(await sys.api(admin).get("/streams", { include_all: true })).streams;
    expect(all.map((s: { stream_id: number }) => s.stream_id)).toContain(priv);
  });

  it("unknown ids → Invalid channel ID", async () => {
    expect(pick(await sys.api(alice).get("/streams/987654"))).toEqual(err(400, "BAD_REQUEST", "Invalid channel ID"));
  });
});

describe("subscriptions", () => {
  it("POST /users/me/subscriptions creates missing channels and subscribes; GET lists with subscribers", async () => {
    const capture = captureEvents(sys);
    const res = ok(
      await sys.api(bob).post("/users/me/subscriptions", {
        subscriptions: [{ name: "design" }, { name: "fresh", description: "New" }],
      }),
    );
    expect(res.subscribed).toEqual({ [String(bob.userId)]: ["fresh"] });
    expect(res.already_subscribed).toEqual({ [String(bob.userId)]: ["design"] });
    const events = await capture.take();
    capture.stop();
    expect(
      events.filter((e) => e.event.type === "stream").map((e) => (e.event.streams as { name: string }[])[0]!.name),
    ).toEqual(["fresh"]);

    const { subscriptions } = ok(await sys.api(bob).get("/users/me/subscriptions", { include_subscribers: true }));
    const fresh = subscriptions.find((s: { name: string }) => s.name === "fresh");
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
    const colors = subscriptions.map((s: { color: string }) => s.color);
    expect(new Set(colors).size).toBe(colors.length);
    const plain = ok(await sys.api(bob).get("/users/me/subscriptions")).subscriptions;
    expect(plain[0].subscribers).toBeUndefined();
  });

  it("principals subscribe others (ids or emails); private channels need access", async () => {
    const res = ok(
      await sys.api(alice).post("/users/me/subscriptions", {
        subscriptions: [{ name: "design" }],
        principals: [guest.email],
      }),
    );
    expect(res.subscribed).toEqual({ [String(guest.userId)]: ["design"] });
    expect(
      pick(await sys.api(alice).post("/users/me/subscriptions", { subscriptions: [{ name: "bob-private" }] })),
    ).toEqual(err(400, "BAD_REQUEST", "Unable to access channel (bob-private)."));
    const soft = ok(
      await sys.api(alice).post("/users/me/subscriptions", {
        subscriptions: [{ name: "bob-private" }, { name: "design" }],
        authorization_errors_fatal: false,
      }),
    );
    expect(soft).toMatchObject({
      subscribed: {},
      already_subscribed: { [alice.userId]: ["design"] },
      unauthorized: ["bob-private"],
    });
    expect(
      pick(
        await sys
          .api(guest)
          .post("/users/me/subscriptions", { subscriptions: [{ name: "design" }], principals: [bob.userId] }),
      ),
    ).toEqual(err(400, "BAD_REQUEST", "Insufficient permission"));
    expect(
      pick(
        await sys
          .api(alice)
          .post("/users/me/subscriptions", { subscriptions: [{ name: "design" }], principals: [424242] }),
      ),
    ).toEqual(err(400, "BAD_REQUEST", "Invalid user ID: 424242"));
    const { subscriptions } = ok(await sys.api(guest).get("/users/me/subscriptions"));
    expect(subscriptions.map((s: { name: string }) => s.name)).toEqual(["design"]);
  });
});
