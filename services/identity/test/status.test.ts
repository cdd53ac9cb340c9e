/**
 * POST /users/me/status and GET /users/{user_id}/status: only what is
 * passed changes, the user_status event carries it to everyone, register's
 * user_status lists what is set, and `away` is the inverse of presence_enabled.
 */
import { identity, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser, bob: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("alice");
  bob = await org.makeUser("bob");
});
afterAll(() => org?.stop());

const setStatus = (user: Credentials, params: ParamsIn<typeof identity.updateStatus>) =>
  org.call(identity.updateStatus, params, user);
const statusOf = async (userId: number, as: Credentials = org.owner) =>
  (await org.call(identity.getUserStatus, { user_id: userId }, as)).status;
const registered = async (user: Credentials, params: Record<string, unknown>) =>
  (await org.api(user).post("/register", params)).body as Record<string, unknown>;
const userStatusState = async (user: Credentials) =>
  (await registered(user, { fetch_event_types: ["user_status"] })).user_status as Record<string, unknown>;

/** A fresh user per test: statuses are per user and tests should not see each other's. */
let n = 0;
const freshUser = () => org.makeUser(`status${++n}`);

describe("POST /users/me/status", () => {
  it("sets text and emoji (a name alone stands for its emoji): Zulip's empty success, the event to everyone", async () => {
    const carol = await freshUser();
    const watcher = await EventReader.register(org.api(bob), { event_types: ["user_status"] });
    const own = await EventReader.register(org.api(carol), { event_types: ["user_status"] });
    const res = await org.api(carol).post("/users/me/status", { status_text: "  on vacation  ", emoji_name: "car" });
    expect([res.status, res.body]).toEqual([200, { result: "success", msg: "" }]);

    const event = {
      type: "user_status",
      user_id: carol.userId,
      status_text: "on vacation",
      emoji_name: "car",
      emoji_code: "1f697",
      reaction_type: "unicode_emoji",
    };
    for (const reader of [watcher, own]) {
      expect((await reader.until((e) => e.length >= 1)).map(({ id: _id, ...e }) => e)).toEqual([event]);
    }
    const status = {
      status_text: "on vacation",
      emoji_name: "car",
      emoji_code: "1f697",
      reaction_type: "unicode_emoji",
    };
    expect(await statusOf(carol.userId)).toEqual(status);
    expect((await userStatusState(bob))[carol.userId]).toEqual(status);
  });

  it("changes only what is passed; an empty text or emoji name clears it; nothing set leaves register's list", async () => {
    const dave = await freshUser();
    await setStatus(dave, { status_text: "busy", emoji_name: "zulip", reaction_type: "service_extra_emoji" });
    expect(await statusOf(dave.userId)).toEqual({
      status_text: "busy",
      emoji_name: "zulip",
      emoji_code: "zulip",
      reaction_type: "zulip_extra_emoji",
    });

    const reader = await EventReader.register(org.api(bob), { event_types: ["user_status"] });
    await setStatus(dave, { status_text: "in a meeting" });
    expect(await statusOf(dave.userId)).toEqual({
      status_text: "in a meeting",
      emoji_name: "zulip",
      emoji_code: "zulip",
      reaction_type: "zulip_extra_emoji",
    });
    await setStatus(dave, { emoji_name: "" });
    expect(await statusOf(dave.userId)).toEqual({ status_text: "in a meeting" });
    await setStatus(dave, { status_text: "" });
    expect(await statusOf(dave.userId)).toEqual({});
    expect(await userStatusState(bob)).not.toHaveProperty(String(dave.userId));

    expect((await reader.until((e) => e.length >= 3)).map(({ id: _id, ...e }) => e)).toEqual([
      { type: "user_status", user_id: dave.userId, status_text: "in a meeting" },
      { type: "user_status", user_id: dave.userId, emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" },
      { type: "user_status", user_id: dave.userId, status_text: "" },
    ]);
  });

  it("away is the inverse of presence_enabled: the setting, its events, and away in the status", async () => {
    const erin = await freshUser();
    const own = await EventReader.register(org.api(erin), {
      event_types: ["user_status", "user_settings", "presence"],
    });
    const other = await EventReader.register(org.api(bob), { event_types: ["user_status", "presence"] });
    await setStatus(erin, { away: true });

    const settings = (await registered(erin, { fetch_event_types: ["user_settings"] })).user_settings;
    expect(settings).toMatchObject({ presence_enabled: false });
    expect(await statusOf(erin.userId)).toEqual({ away: true });
    expect((await userStatusState(bob))[erin.userId]).toEqual({ away: true });

    const ownEvents = await own.until((e) => e.length >= 3);
    expect(ownEvents.map((e) => e.type)).toEqual(["user_settings", "presence", "user_status"]);
    expect(ownEvents[0]).toMatchObject({ op: "update", property: "presence_enabled", value: false });
    expect(ownEvents[2]).toEqual({ id: expect.any(Number), type: "user_status", user_id: erin.userId, away: true });
    // presence turned off: a report from long enough ago that everyone shows the user offline
    const presence = (await other.until((e) => e.length >= 2)).find((e) => e.type === "presence")!;
    const { website } = presence.presence as { website: { timestamp: number } };
    expect(Date.now() / 1000 - website.timestamp).toBeGreaterThan(200);

    await setStatus(erin, { away: false, status_text: "back" });
    expect(await statusOf(erin.userId)).toEqual({ status_text: "back" });
    expect((await registered(erin, { fetch_event_types: ["user_settings"] })).user_settings).toMatchObject({
      presence_enabled: true,
    });
  });

  it("refuses what Zulip refuses, changing nothing", async () => {
    const frank = await freshUser();
    await setStatus(frank, { status_text: "kept", emoji_name: "car" });
    const before = await statusOf(frank.userId);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "Client did not pass any new values."],
      [{ status_text: "x".repeat(61) }, "status_text is too long (limit: 60 characters)"],
      // without text or emoji name, nothing counts as new
      [{ emoji_code: "1f697" }, "Client did not pass any new values."],
      [
        { status_text: "new", emoji_code: "1f697" },
        "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
      ],
      [
        { status_text: "new", reaction_type: "unicode_emoji" },
        "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
      ],
      [{ emoji_name: "no_such_emoji" }, "Emoji 'no_such_emoji' does not exist"],
      [{ emoji_name: "car", emoji_code: "1f600", reaction_type: "unicode_emoji" }, "Invalid emoji name."],
      [{ emoji_name: "car", emoji_code: "zzzz", reaction_type: "unicode_emoji" }, "Invalid emoji code."],
      [{ emoji_name: "party_parrot", emoji_code: "1", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "car", emoji_code: "1f697", reaction_type: "sticker" }, "Invalid emoji type."],
    ];
    for (const [params, msg] of cases) {
      await expectZulipError(org.api(frank).post("/users/me/status", params), bad(msg));
    }
    expect(await statusOf(frank.userId)).toEqual(before);
    // 60 characters once surrounding spaces are stripped are allowed
    await setStatus(frank, { status_text: ` ${"y".repeat(60)} ` });
    expect((await statusOf(frank.userId)).status_text).toBe("y".repeat(60));
  });

  it("every role sets its own status and reads anyone's", async () => {
    const roles = [
      ["owner", org.owner],
      ["admin", await org.makeUser("statusadmin", 200)],
      ["moderator", await org.makeUser("statusmod", 300)],
      ["member", await freshUser()],
      ["guest", await org.makeUser("statusguest", 600)],
    ] as const;
    for (const [role, user] of roles) {
      await setStatus(user, { status_text: `I am ${role}` });
      for (const [, reader] of roles)
        expect(await statusOf(user.userId, reader)).toEqual({ status_text: `I am ${role}` });
    }
  });
});

describe("GET /users/{user_id}/status", () => {
  it("answers {} for a user who set nothing, and No such user for an unknown id", async () => {
    const res = await org.api(alice).get(`/users/${bob.userId}/status`);
    expect([res.status, res.body]).toEqual([200, { result: "success", msg: "", status: {} }]);
    await expectZulipError(org.api(alice).get("/users/999999/status"), bad("No such user"));
  });
});
