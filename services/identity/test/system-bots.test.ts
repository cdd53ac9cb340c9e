/**
 * Zulip's system bots: each organization's Notification Bot and Welcome Bot,
 * made with the organization or on first use, listed in register's cross_realm_bots and
 * nowhere that lists the organization's users, and never logged in as.
 */
import { createHash, randomUUID } from "node:crypto";
import { BusClient, identity, notifications, realmConfig, type SYSTEM_BOT_EMAILS } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let member: TestUser;
let botIds: number[];
beforeAll(async () => {
  org = await testOrganization();
  member = await org.makeUser("member");
});
afterAll(() => org?.stop());

const BOT_EMAIL = "notification-bot@zulip.com";
const WELCOME_BOT_EMAIL = "welcome-bot@zulip.com";
const BOTS = [
  { email: BOT_EMAIL, fullName: "Notification Bot" },
  { email: WELCOME_BOT_EMAIL, fullName: "Welcome Bot" },
];
const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email).digest("hex")}?d=identicon&version=1`;

type RegisterUsers = {
  realm_users: Array<{ user_id: number }>;
  cross_realm_bots: Array<Record<string, unknown>>;
};
const registerUsers = async (user: TestUser) =>
  (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["realm_user"] },
    user,
  )) as unknown as RegisterUsers;

describe("register", () => {
  it("lists Notification Bot and Welcome Bot in cross_realm_bots as Zulip's get_cross_realm_dicts does, not in realm_users", async () => {
    const state = await registerUsers(member);
    expect(state.cross_realm_bots).toEqual(
      BOTS.map(({ email, fullName }) => ({
        user_id: expect.any(Number),
        delivery_email: email,
        email,
        full_name: fullName,
        date_joined: expect.any(String),
        is_active: true,
        is_owner: false,
        is_admin: false,
        is_guest: false,
        is_bot: true,
        is_system_bot: true,
        bot_type: 1,
        bot_owner_id: null,
        role: 400,
        timezone: "",
        avatar_url: gravatar(email),
        avatar_version: 1,
      })),
    );
    botIds = state.cross_realm_bots.map((b) => b.user_id as number);
    expect(state.realm_users.map((u) => u.user_id).sort((a, b) => a - b)).toEqual(
      [org.owner.userId, member.userId].sort((a, b) => a - b),
    );
    // the same bot for everyone, every time
    expect((await registerUsers(org.owner)).cross_realm_bots.map((b) => b.user_id)).toEqual(botIds);
  });
});

describe("user lists and look-ups", () => {
  it("GET /users leaves it out; GET /users/{id} and /users/{email} do not find it (it is not of the organization in Zulip)", async () => {
    const { members } = await org.call(identity.getUsers, {}, member);
    for (const [i, { email }] of BOTS.entries()) {
      const botId = botIds[i]!;
      expect(members.map((u) => u.user_id)).not.toContain(botId);
      expect(members.every((u) => u.email !== email)).toBe(true);
      await expectZulipError(org.call(identity.getUser, { user_id: botId }, member), badRequestError("No such user"));
      await expectZulipError(org.call(identity.getUserByEmail, { email }, member), badRequestError("No such user"));
      // nor may an administrator change it
      await expectZulipError(
        org.call(identity.updateUser, { user_id: botId, full_name: "Mine now" }, org.owner),
        badRequestError("No such user"),
      );
    }
  });

  it("its address stays taken", async () => {
    for (const { email } of BOTS) {
      await expectZulipError(
        org.call(identity.createUser, { email, password: "pw-123456", full_name: "Impostor" }, org.owner),
        badRequestError(`Email '${email}' already in use`),
      );
    }
  });
});

describe("logging in", () => {
  it("there is no password to log in with and no API key to authenticate with", async () => {
    for (const { email } of BOTS) {
      for (const password of ["", "x", email.split("@")[0]!]) {
        await expectZulipError(org.call(identity.fetchApiKey, { username: email, password }, null), {
          status: 401,
          code: "AUTHENTICATION_FAILED",
          msg: "Your username or password is incorrect",
        });
      }
      const res = await org.api({ email, apiKey: "a".repeat(32) }).get("/users/me");
      await expectZulipError(res, { status: 401, code: "INVALID_API_KEY", msg: "Invalid API key" });
    }
  });
});

describe("organizations made before the bot", () => {
  it("get it on first use, once, however many ask at the same time", async () => {
    const bus = new BusClient(org.nc, { timeoutMs: 15_000 });
    const subdomain = `old-${randomUUID().slice(0, 8)}`;
    const requestId = `test-${randomUUID()}`;
    // an organization without its owner: nothing has made its bot yet
    const { realm } = await bus.request(
      realmConfig.createRealm,
      { subdomain, name: "Older" },
      { realm: null, actor: null, requestId },
    );
    const ctx = { realm, actor: null, requestId };
    const ask = (email: (typeof SYSTEM_BOT_EMAILS)[number]) => bus.request(identity.getSystemBot, { email }, ctx);
    const ids = await Promise.all(Array.from({ length: 5 }, () => ask(BOT_EMAIL)));
    expect(new Set(ids.map((r) => r.user_id)).size).toBe(1);
    const { users } = await bus.request(identity.getUserSummaries, { user_ids: [ids[0]!.user_id] }, ctx);
    expect(users).toEqual([expect.objectContaining({ email: BOT_EMAIL, is_bot: true, is_system_bot: true })]);
    // the organization's owner, made next, finds the same bot, and makes the other
    await bus.request(identity.createOwner, { email: "boss@example.com", full_name: "Boss", password: null }, ctx);
    expect((await ask(BOT_EMAIL)).user_id).toBe(ids[0]!.user_id);
    const welcomeBot = await ask(WELCOME_BOT_EMAIL);
    expect(welcomeBot.user_id).not.toBe(ids[0]!.user_id);
    const { users: welcome } = await bus.request(identity.getUserSummaries, { user_ids: [welcomeBot.user_id] }, ctx);
    expect(welcome).toEqual([
      expect.objectContaining({ email: WELCOME_BOT_EMAIL, full_name: "Welcome Bot", is_system_bot: true }),
    ]);
    // and the organization's user list is still only its owner
    expect((await bus.request(identity.getUserSummaries, {}, ctx)).users.map((u) => u.email)).toEqual([
      "boss@example.com",
    ]);
  });
});
