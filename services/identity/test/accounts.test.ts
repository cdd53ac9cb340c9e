/**
 * Account lifecycle (Zulip's deactivate_user_backend, deactivate_user_own_backend,
 * reactivate_user_backend, regenerate_api_key) and the organization's defaults
 * of new users' settings (update_realm_user_settings_defaults), through HTTP.
 */
import { identity } from "@teamchat/shared";
import { ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", 200);
  moderator = await org.makeUser("moderator", 300);
  member = await org.makeUser("member");
  guest = await org.makeUser("guest", 600);
});
afterAll(() => org?.stop());

const ownerRequired = bad("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
const adminRequired = bad("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
const deactivated = { status: 401, code: "USER_DEACTIVATED" as const, msg: "Account is deactivated" };
const invalidKey = { status: 401, code: "INVALID_API_KEY" as const, msg: "Invalid API key" };

const deactivate = (by: Credentials, user_id: number) => org.call(identity.deactivateUser, { user_id }, by);
const reactivate = (by: Credentials, user_id: number) => org.call(identity.reactivateUser, { user_id }, by);
const isActive = async (user_id: number) => (await org.call(identity.getUser, { user_id }, org.owner)).user.is_active;

describe("DELETE /users/{user_id}", () => {
  it("an administrator deactivates a member: their key is refused at once, they stay listed as inactive, everyone hears realm_user is_active", async () => {
    const leaving = await org.makeUser("leaving1");
    ok(await org.api(leaving).get("/users/me")); // the gateway now trusts the key for a while
    const watcher = await EventReader.register(org.api(member), { event_types: JSON.stringify(["realm_user"]) });
    expect(await org.call(identity.deactivateUser, { user_id: leaving.userId }, admin)).toEqual({
      result: "success",
      msg: "",
    });
    await expectZulipError(org.api(leaving).get("/users/me"), deactivated);
    await expectZulipError(
      org.call(identity.fetchApiKey, { username: leaving.email, password: leaving.password }, null),
      deactivated,
    );
    expect(await isActive(leaving.userId)).toBe(false);
    await watcher.until((es) => es.some((e) => e.type === "realm_user"));
    expect(watcher.ofType("realm_user").map(({ id: _id, ...e }) => e)).toEqual([
      { type: "realm_user", op: "update", person: { user_id: leaving.userId, is_active: false } },
    ]);
  });

  it("deactivation_notification_comment is accepted (no mail is sent) and limited to 2000 characters", async () => {
    const leaving = await org.makeUser("leaving2");
    await expectZulipError(
      org.call(
        identity.deactivateUser,
        { user_id: leaving.userId, deactivation_notification_comment: "x".repeat(2001) },
        admin,
      ),
      {
        status: 400,
        code: "BAD_REQUEST",
        msg: "deactivation_notification_comment is too long (limit: 2000 characters)",
      },
    );
    expect(await isActive(leaving.userId)).toBe(true);
    await org.call(
      identity.deactivateUser,
      { user_id: leaving.userId, deactivation_notification_comment: "Farewell!" },
      admin,
    );
    expect(await isActive(leaving.userId)).toBe(false);
  });

  it("refuses moderators, members and guests; unknown, deactivated users and bots; changes nothing", async () => {
    const target = await org.makeUser("target1");
    for (const by of [moderator, member, guest]) {
      await expectZulipError(deactivate(by, target.userId), bad("Insufficient permission"));
    }
    await expectZulipError(deactivate(admin, 999_999), bad("No such user"));
    const { user_id: botId } = await org.call(
      identity.createBot,
      { full_name: "Target Bot", short_name: "target" },
      member,
    );
    await expectZulipError(deactivate(admin, botId), bad("No such user"));
    expect(await isActive(botId)).toBe(true);
    expect(await isActive(target.userId)).toBe(true);
    await deactivate(admin, target.userId);
    await expectZulipError(deactivate(admin, target.userId), bad("User is deactivated"));
  });

  it("an owner is deactivated only by an owner, and never the last one", async () => {
    await expectZulipError(deactivate(admin, org.owner.userId), ownerRequired);
    await expectZulipError(
      deactivate(org.owner, org.owner.userId),
      bad("Cannot deactivate the only organization owner"),
    );
    const second = await org.makeUser("owner2", 100);
    await expectZulipError(deactivate(admin, second.userId), ownerRequired);
    await deactivate(org.owner, second.userId);
    expect(await isActive(second.userId)).toBe(false);
    await expectZulipError(
      deactivate(org.owner, org.owner.userId),
      bad("Cannot deactivate the only organization owner"),
    );
  });

  it("the user's bots are deactivated with them; messages they sent stay readable", async () => {
    const leaving = await org.makeUser("leaving3");
    const { user_id: botId, api_key: botKey } = await org.call(
      identity.createBot,
      { full_name: "Leaving Bot", short_name: "leaving3" },
      leaving,
    );
    const { user_id: retiredBotId } = await org.call(
      identity.createBot,
      { full_name: "Retired Bot", short_name: "retired3" },
      leaving,
    );
    await org.call(identity.deactivateBot, { bot_id: retiredBotId }, leaving);
    const botEmail = `leaving3-bot@${org.realm.host.split(":")[0]}`;
    ok(await org.api({ email: botEmail, apiKey: botKey }).get("/users/me"));
    const adminEvents = await EventReader.register(org.api(admin), { event_types: JSON.stringify(["realm_bot"]) });
    const sent = ok(
      await org.api(leaving).post("/messages", { type: "direct", to: JSON.stringify([member.userId]), content: "bye" }),
    );
    await deactivate(admin, leaving.userId);
    expect(await isActive(botId)).toBe(false);
    await expectZulipError(org.api({ email: botEmail, apiKey: botKey }).get("/users/me"), deactivated);
    await adminEvents.until((es) => es.length > 0);
    expect(adminEvents.ofType("realm_bot").map(({ id: _id, ...e }) => e)).toEqual([
      { type: "realm_bot", op: "update", bot: { user_id: botId, is_active: false } },
    ]);
    const read = ok(await org.api(member).get(`/messages/${sent.id as number}`));
    expect((read.message as { content: string }).content).toBe("<p>bye</p>");
  });
});

describe("POST /users/{user_id}/reactivate", () => {
  it("an administrator reactivates: the old key works again, everyone hears realm_user is_active true", async () => {
    const back = await org.makeUser("back1");
    await deactivate(admin, back.userId);
    await expectZulipError(org.api(back).get("/users/me"), deactivated);
    const watcher = await EventReader.register(org.api(member), { event_types: JSON.stringify(["realm_user"]) });
    expect(await reactivate(admin, back.userId)).toEqual({ result: "success", msg: "" });
    ok(await org.api(back).get("/users/me"));
    expect(await isActive(back.userId)).toBe(true);
    await watcher.until((es) => es.length > 0);
    expect(watcher.ofType("realm_user").map(({ id: _id, ...e }) => e)).toEqual([
      { type: "realm_user", op: "update", person: { user_id: back.userId, is_active: true } },
    ]);
  });

  it("refuses moderators, members and guests, and unknown users", async () => {
    const back = await org.makeUser("back2");
    await deactivate(admin, back.userId);
    for (const by of [moderator, member, guest]) {
      await expectZulipError(reactivate(by, back.userId), bad("Insufficient permission"));
    }
    await expectZulipError(reactivate(admin, 999_999), bad("No such user"));
    expect(await isActive(back.userId)).toBe(false);
  });
});

describe("DELETE /users/me", () => {
  it("a member deactivates themselves: their key stops working", async () => {
    const leaving = await org.makeUser("self1");
    expect(await org.call(identity.deactivateOwnUser, {}, leaving)).toEqual({ result: "success", msg: "" });
    await expectZulipError(org.api(leaving).get("/users/me"), deactivated);
  });

  it("the only owner cannot, with Zulip's CANNOT_DEACTIVATE_LAST_USER", async () => {
    await expectZulipError(org.call(identity.deactivateOwnUser, {}, org.owner), {
      status: 400,
      code: "CANNOT_DEACTIVATE_LAST_USER",
      msg: "Cannot deactivate the only organization owner.",
      is_last_owner: true,
      entity: "organization owner",
    });
    expect(await isActive(org.owner.userId)).toBe(true);
  });

  it("nor the only active user of an organization", async () => {
    const alone = await testOrganization();
    try {
      await expectZulipError(alone.call(identity.deactivateOwnUser, {}, alone.owner), {
        status: 400,
        code: "CANNOT_DEACTIVATE_LAST_USER",
        msg: "Cannot deactivate the only user.",
        is_last_owner: false,
        entity: "user",
      });
    } finally {
      await alone.stop();
    }
  });
});

describe("POST /users/me/api_key/regenerate", () => {
  it("gives a new key; every earlier key of the user is refused at once", async () => {
    const user = await org.makeUser("rekey1");
    const second = await org.call(identity.fetchApiKey, { username: user.email, password: user.password }, null);
    ok(await org.api(user).get("/users/me"));
    const { api_key } = await org.call(identity.regenerateApiKey, {}, user);
    expect(api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    await expectZulipError(org.api(user).get("/users/me"), invalidKey);
    await expectZulipError(org.api({ email: user.email, apiKey: second.api_key }).get("/users/me"), invalidKey);
    const me = ok(await org.api({ email: user.email, apiKey: api_key }).get("/users/me"));
    expect(me.user_id).toBe(user.userId);
  });

  it("guests may; bots may not", async () => {
    const g = await org.makeUser("rekeyguest", 600);
    const { api_key } = await org.call(identity.regenerateApiKey, {}, g);
    ok(await org.api({ email: g.email, apiKey: api_key }).get("/users/me"));
    const bot = await org.call(identity.createBot, { full_name: "Rekey Bot", short_name: "rekey" }, member);
    const botCreds = { email: `rekey-bot@${org.realm.host.split(":")[0]}`, apiKey: bot.api_key };
    await expectZulipError(
      org.call(identity.regenerateApiKey, {}, botCreds),
      bad("This endpoint does not accept bot requests."),
    );
  });
});

describe("PATCH /realm/user_settings_defaults", () => {
  it("administrators change defaults: register shows them, everyone hears each change, new users start with them, existing users keep theirs", async () => {
    const watcher = await EventReader.register(org.api(member), {
      event_types: JSON.stringify(["realm_user_settings_defaults"]),
    });
    const reply = await org.call(
      identity.updateRealmUserSettingsDefaults,
      { emojiset: "text", enter_sends: true, twenty_four_hour_time: false },
      admin,
    );
    expect(reply).toEqual({ result: "success", msg: "" });
    await watcher.until((es) => es.length >= 2);
    expect(watcher.events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: "realm_user_settings_defaults", op: "update", property: "emojiset", value: "text" },
      { type: "realm_user_settings_defaults", op: "update", property: "enter_sends", value: true },
    ]);
    const reg = ok(
      await org.api(member).post("/register", { fetch_event_types: JSON.stringify(["realm_user_settings_defaults"]) }),
    );
    expect(reg.realm_user_settings_defaults).toMatchObject({
      emojiset: "text",
      enter_sends: true,
      twenty_four_hour_time: false,
    });
    const memberSettings = ok(
      await org.api(member).post("/register", {
        fetch_event_types: JSON.stringify(["user_settings"]),
        client_capabilities: JSON.stringify({ user_settings_object: true }),
      }),
    );
    expect(memberSettings.user_settings).toMatchObject({ emojiset: "google", enter_sends: false });
    const newcomer = await org.makeUser("newcomer1");
    const theirs = ok(
      await org.api(newcomer).post("/register", {
        fetch_event_types: JSON.stringify(["user_settings"]),
        client_capabilities: JSON.stringify({ user_settings_object: true }),
      }),
    );
    expect(theirs.user_settings).toMatchObject({ emojiset: "text", enter_sends: true });
  });

  it("refuses moderators, members and guests; bad values change nothing; unknown and personal-only settings are ignored", async () => {
    for (const by of [moderator, member, guest]) {
      await expectZulipError(
        org.call(identity.updateRealmUserSettingsDefaults, { enter_sends: false }, by),
        adminRequired,
      );
    }
    await expectZulipError(
      org.call(identity.updateRealmUserSettingsDefaults, { notification_sound: "nope", enter_sends: false }, admin),
      bad("Invalid notification sound 'nope'"),
    );
    await expectZulipError(
      org.call(identity.updateRealmUserSettingsDefaults, { email_notifications_batching_period_seconds: 0 }, admin),
      bad("Invalid email batching period: 0 seconds"),
    );
    const reply = ok(
      await org
        .api(admin)
        .patch("/realm/user_settings_defaults", { default_language: "de", enable_login_emails: "false" }),
    );
    expect(reply).toEqual({
      result: "success",
      msg: "",
      ignored_parameters_unsupported: ["default_language", "enable_login_emails"],
    });
    const reg = ok(
      await org.api(admin).post("/register", { fetch_event_types: JSON.stringify(["realm_user_settings_defaults"]) }),
    );
    expect(reg.realm_user_settings_defaults).toMatchObject({
      enter_sends: true,
      default_language: "en",
      enable_login_emails: true,
    });
  });
});
