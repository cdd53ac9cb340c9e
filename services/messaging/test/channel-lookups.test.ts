/**
 * Channel look-ups: GET /get_stream_id, /streams/{id}/members,
 * /users/{id}/subscriptions/{id}, /streams/{id}/email_address, and GET
 * /streams with each of its filters, for every kind of user (Zulip's
 * access_stream_by_id / by_name and get_streams_for_user).
 */
import { identity, messaging, SYSTEM_GROUPS, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let admin: TestUser, alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
let general: number, secret: number, club: number, quiet: number;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("Admin", 200, "Admin");
  ({ alice, bob, carol, guest } = await makeCast(org));
  general = await createChannel(org, alice, "general", [alice.userId, bob.userId, guest.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId], { invite_only: true });
  // carol may subscribe herself to club: Zulip gives her content access without a subscription
  club = await createChannel(org, alice, "club", [alice.userId], {
    invite_only: true,
    history_public_to_subscribers: true,
    can_subscribe_group: { direct_members: [carol.userId], direct_subgroups: [] },
  });
  quiet = await createChannel(org, alice, "quiet", []);
});
afterAll(() => org?.stop());

const streamId = async (user: Credentials, stream: string) =>
  (await org.call(messaging.getStreamId, { stream }, user)).stream_id;
const members = async (user: Credentials, id: number) =>
  (await org.call(messaging.getSubscribers, { stream_id: id }, user)).subscribers;
const status = async (user: Credentials, userId: number, id: number) =>
  (await org.call(messaging.getSubscriptionStatus, { user_id: userId, stream_id: id }, user)).is_subscribed;
const names = async (user: Credentials, params: ParamsIn<typeof messaging.getStreams> = {}) =>
  (await org.call(messaging.getStreams, params, user)).streams.map((s) => s.name);

describe("GET /get_stream_id", () => {
  it("gives the id of a channel the user may read, whatever the case of its name", async () => {
    expect(await org.call(messaging.getStreamId, { stream: "general" }, bob)).toEqual({
      result: "success",
      msg: "",
      stream_id: general,
    });
    expect(await streamId(bob, "GENERAL")).toBe(general);
    expect(await streamId(alice, "secret")).toBe(secret);
    expect(await streamId(carol, "club")).toBe(club);
  });

  it("answers Zulip's error alike for missing channels and those the user may not read", async () => {
    await expectZulipError(streamId(bob, "nonexistent"), badRequestError("Invalid channel name 'nonexistent'"));
    await expectZulipError(streamId(bob, "secret"), badRequestError("Invalid channel name 'secret'"));
    // administrators see that a private channel exists, but may not read it
    await expectZulipError(streamId(admin, "secret"), badRequestError("Invalid channel name 'secret'"));
    await expectZulipError(streamId(guest, "quiet"), badRequestError("Invalid channel name 'quiet'"));
    await expectZulipError(org.api(bob).get("/get_stream_id", {}), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'stream' argument",
      var_name: "stream",
    });
  });
});

describe("GET /streams/{stream_id}/members", () => {
  it("lists the subscribers to anyone who may see the channel", async () => {
    expect(await org.call(messaging.getSubscribers, { stream_id: general }, bob)).toEqual({
      result: "success",
      msg: "",
      subscribers: [alice.userId, bob.userId, guest.userId].sort((a, b) => a - b),
    });
    expect(await members(guest, general)).toContain(guest.userId);
    expect(await members(bob, quiet)).toEqual([]);
    // metadata access is enough: administrators and the can_subscribe_group of a private channel
    expect(await members(admin, secret)).toEqual([alice.userId]);
    expect(await members(org.owner, secret)).toEqual([alice.userId]);
    expect(await members(carol, club)).toEqual([alice.userId]);
  });

  it("refuses hidden and missing channels alike", async () => {
    await expectZulipError(members(bob, secret), badRequestError("Invalid channel ID"));
    await expectZulipError(members(guest, quiet), badRequestError("Invalid channel ID"));
    await expectZulipError(members(bob, 987654), badRequestError("Invalid channel ID"));
  });
});

describe("GET /users/{user_id}/subscriptions/{stream_id}", () => {
  it("tells whether the user is subscribed", async () => {
    expect(await org.call(messaging.getSubscriptionStatus, { user_id: alice.userId, stream_id: general }, bob)).toEqual(
      { result: "success", msg: "", is_subscribed: true },
    );
    expect(await status(bob, carol.userId, general)).toBe(false);
    expect(await status(admin, alice.userId, secret)).toBe(true);
    expect(await status(alice, bob.userId, secret)).toBe(false);
  });

  it("refuses channels the asker may not see and unknown users", async () => {
    await expectZulipError(status(bob, alice.userId, secret), badRequestError("Invalid channel ID"));
    await expectZulipError(status(guest, alice.userId, quiet), badRequestError("Invalid channel ID"));
    await expectZulipError(status(bob, 987654, general), badRequestError("No such user"));
  });
});

describe("GET /streams/{stream_id}/email_address", () => {
  it("answers the empty address: this server has no incoming email gateway", async () => {
    expect(await org.call(messaging.getStreamEmailAddress, { stream_id: general }, bob)).toEqual({
      result: "success",
      msg: "",
      email: "",
    });
    expect(
      await org.call(messaging.getStreamEmailAddress, { stream_id: secret, sender_id: alice.userId }, alice),
    ).toMatchObject({ email: "" });
  });

  it("needs content access, and another sender must be a bot", async () => {
    const email = (user: Credentials, params: ParamsIn<typeof messaging.getStreamEmailAddress>) =>
      org.call(messaging.getStreamEmailAddress, params, user);
    await expectZulipError(email(bob, { stream_id: secret }), badRequestError("Invalid channel ID"));
    await expectZulipError(email(admin, { stream_id: secret }), badRequestError("Invalid channel ID"));
    await expectZulipError(email(bob, { stream_id: general, sender_id: alice.userId }), badRequestError("No such bot"));
  });
});

describe("GET /streams", () => {
  it("by default: public channels and the user's own, by name; guests only their subscriptions", async () => {
    expect(await names(bob)).toEqual(["general", "quiet"]);
    expect(await names(alice)).toEqual(["club", "general", "quiet", "secret"]);
    expect(await names(guest)).toEqual(["general"]);
    expect(await names(admin)).toEqual(["general", "quiet"]);
  });

  it("include_public=false and include_subscribed=false leave those sources out", async () => {
    expect(await names(bob, { include_public: false })).toEqual(["general"]);
    expect(await names(bob, { include_subscribed: false })).toEqual(["general", "quiet"]);
    expect(await names(alice, { include_public: false, include_subscribed: false })).toEqual([]);
    // guests never get public channels as such
    expect(await names(guest, { include_subscribed: false })).toEqual([]);
  });

  it("include_all: every channel the user may see (administrators: all), include_all_active alike", async () => {
    expect(await names(admin, { include_all: true })).toEqual(["club", "general", "quiet", "secret"]);
    expect(await names(admin, { include_all_active: true })).toEqual(["club", "general", "quiet", "secret"]);
    expect(await names(bob, { include_all: true })).toEqual(["general", "quiet"]);
    expect(await names(carol, { include_all: true })).toEqual(["club", "general", "quiet"]);
    expect(await names(guest, { include_all: true })).toEqual(["general"]);
  });

  it("include_can_access_content: the channels the user may read", async () => {
    expect(await names(admin, { include_can_access_content: true })).toEqual(["general", "quiet"]);
    expect(await names(carol, { include_can_access_content: true })).toEqual(["club", "general", "quiet"]);
    expect(await names(alice, { include_can_access_content: true })).toEqual(["club", "general", "quiet", "secret"]);
  });

  it("include_default marks each channel with is_default", async () => {
    await org.call(messaging.addDefaultStream, { stream_id: quiet }, admin);
    const streams = (await org.call(messaging.getStreams, { include_default: true }, bob)).streams;
    expect(streams.map((s) => [s.name, s.is_default])).toEqual([
      ["general", false],
      ["quiet", true],
    ]);
    expect((await org.call(messaging.getStreams, {}, bob)).streams[0]).not.toHaveProperty("is_default");
    // a guest is not shown default channels they may not see
    expect(await names(guest, { include_default: true, include_subscribed: false })).toEqual([]);
  });

  it("returns the channel objects as GET /streams/{id} does", async () => {
    const [listed] = (await org.call(messaging.getStreams, { include_public: false }, carol)).streams;
    expect(listed).toBeUndefined();
    const all = (await org.call(messaging.getStreams, { include_all: true }, carol)).streams;
    const clubListed = all.find((s) => s.stream_id === club)!;
    expect(clubListed).toEqual((await org.call(messaging.getStreamById, { stream_id: club }, carol)).stream);
    expect(clubListed.can_subscribe_group).toEqual({ direct_members: [carol.userId], direct_subgroups: [] });
    expect(clubListed.can_send_message_group).toBe(SYSTEM_GROUPS["role:everyone"]);
  });
});

it("GET /streams include_owner_subscribed: a bot sees its owner's private subscriptions too", async () => {
  const bot = await org.call(identity.createBot, { full_name: "Alice Bot", short_name: "alicebot" }, alice);
  const { bots } = await org.call(identity.getBots, {}, alice);
  const asBot: Credentials = { email: bots.find((b) => b.api_key === bot.api_key)!.username, apiKey: bot.api_key };
  const names = async (params: ParamsIn<typeof messaging.getStreams>, user: Credentials) =>
    (await org.call(messaging.getStreams, params, user)).streams.map((s) => s.name).sort();
  const only = { include_public: false, include_subscribed: true };
  expect(await names(only, asBot)).toEqual([]);
  expect(await names({ ...only, include_owner_subscribed: true }, asBot)).toEqual(["club", "general", "secret"]);
  // not a bot: nothing more
  expect(await names({ ...only, include_owner_subscribed: true }, bob)).toEqual(await names(only, bob));
});
