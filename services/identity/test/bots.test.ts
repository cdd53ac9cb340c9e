/**
 * Bots (Zulip's add_bot_backend, get_bots_backend, patch_bot_backend,
 * deactivate_bot_backend, regenerate_bot_api_key), register's realm_bots and
 * realm_bot events, through HTTP.
 */
import { identity } from "@teamchat/shared";
import { ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, other: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", 200);
  moderator = await org.makeUser("moderator", 300);
  member = await org.makeUser("member");
  other = await org.makeUser("other");
  guest = await org.makeUser("guest", 600);
});
afterAll(() => org?.stop());

const host = () => org.realm.host.split(":")[0]!;
const botEmail = (short: string) => `${short}-bot@${host()}`;
const createBot = (by: Credentials, params: Parameters<typeof org.call<typeof identity.createBot>>[1]) =>
  org.call(identity.createBot, params, by);
const realmBots = async (user: Credentials) =>
  ok(await org.api(user).post("/register", { fetch_event_types: JSON.stringify(["realm_bot"]) }))
    .realm_bots as identity.Bot[];
const withoutIds = (events: Array<{ id: number }>) => events.map(({ id: _id, ...e }) => e);

describe("POST /bots", () => {
  it("a member creates a generic bot: Zulip's reply, a working key, realm_user add to everyone, realm_bot add to its administrators", async () => {
    const everyone = await EventReader.register(org.api(other), {
      event_types: JSON.stringify(["realm_user", "realm_bot"]),
    });
    const admins = await EventReader.register(org.api(admin), { event_types: JSON.stringify(["realm_bot"]) });
    const owner = await EventReader.register(org.api(member), { event_types: JSON.stringify(["realm_bot"]) });
    const reply = await createBot(member, { full_name: "Helper Bot", short_name: "helper" });
    expect(reply).toEqual({
      result: "success",
      msg: "",
      user_id: expect.any(Number),
      api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      avatar_url: expect.stringContaining("https://secure.gravatar.com/avatar/"),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    });
    const me = ok(await org.api({ email: botEmail("helper"), apiKey: reply.api_key }).get("/users/me"));
    expect(me).toMatchObject({
      user_id: reply.user_id,
      is_bot: true,
      email: botEmail("helper"),
      full_name: "Helper Bot",
    });
    const { user } = await org.call(identity.getUser, { user_id: reply.user_id }, guest);
    expect(user).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: member.userId, role: 400, is_active: true });

    const bot: identity.Bot = {
      email: botEmail("helper"),
      user_id: reply.user_id,
      full_name: "Helper Bot",
      bot_type: 1,
      is_active: true,
      api_key: reply.api_key,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      avatar_url: reply.avatar_url,
      services: [],
      owner_id: member.userId,
    };
    for (const reader of [admins, owner]) {
      await reader.until((es) => es.length > 0);
      expect(withoutIds(reader.events)).toEqual([{ type: "realm_bot", op: "add", bot }]);
    }
    await everyone.until((es) => es.some((e) => e.type === "realm_user"));
    expect(everyone.ofType("realm_bot")).toEqual([]);
    expect(everyone.ofType("realm_user")[0]).toMatchObject({
      op: "add",
      person: { user_id: reply.user_id, is_bot: true },
    });
  });

  it("outgoing webhook and embedded bots keep their service; incoming webhook bots none", async () => {
    const hook = await createBot(member, {
      full_name: "Hook Bot",
      short_name: "hook",
      bot_type: 3,
      payload_url: JSON.stringify("https://hooks.example.com/zulip"),
      interface_type: 2,
    });
    const embedded = await createBot(member, {
      full_name: "Converter Bot",
      short_name: "conv",
      bot_type: 4,
      service_name: "converter",
      config_data: { unit: "si" },
    });
    const incoming = await createBot(member, { full_name: "Incoming Bot", short_name: "incoming", bot_type: 2 });
    const bots = await realmBots(member);
    const byId = (id: number) => bots.find((b) => b.user_id === id)!;
    expect(byId(hook.user_id).services).toEqual([
      { base_url: "https://hooks.example.com/zulip", interface: 2, token: expect.stringMatching(/^[A-Za-z0-9]{32}$/) },
    ]);
    expect(byId(embedded.user_id).services).toEqual([{ service_name: "converter", config_data: { unit: "si" } }]);
    expect(byId(incoming.user_id)).toMatchObject({ bot_type: 2, services: [] });
  });

  it("each bad input is refused with Zulip's message and creates nothing", async () => {
    const before = (await realmBots(admin)).length;
    await expectZulipError(createBot(member, { full_name: "X Bot", short_name: "  " }), bad("Bad name or username"));
    await expectZulipError(createBot(member, { full_name: "X Bot", short_name: "a b" }), bad("Bad name or username"));
    await expectZulipError(createBot(member, { full_name: "x", short_name: "xbot" }), bad("Name too short!"));
    await expectZulipError(
      createBot(member, { full_name: "Other Helper", short_name: "helper" }),
      bad("Username already in use"),
    );
    await expectZulipError(
      createBot(member, { full_name: "User member", short_name: "dupname" }),
      bad("Name is already in use."),
    );
    await expectZulipError(
      createBot(member, { full_name: "Typo Bot", short_name: "typo", bot_type: 7 }),
      bad("Invalid bot type"),
    );
    await expectZulipError(
      createBot(member, { full_name: "Iface Bot", short_name: "iface", bot_type: 3, interface_type: 5 }),
      bad("Invalid interface type"),
    );
    await expectZulipError(
      createBot(member, {
        full_name: "Url Bot",
        short_name: "url",
        bot_type: 3,
        payload_url: JSON.stringify("not a url"),
      }),
      bad("payload_url is not a URL"),
    );
    await expectZulipError(
      createBot(member, { full_name: "Emb Bot", short_name: "emb", bot_type: 4, service_name: "nope" }),
      bad("Invalid embedded bot name."),
    );
    await expectZulipError(
      createBot(member, { full_name: "Gh Bot", short_name: "gh", bot_type: 2, service_name: "github" }),
      bad("Invalid integration 'github'."),
    );
    expect((await realmBots(admin)).length).toBe(before);
  });

  it("guests and bots may not create bots; moderators and administrators may", async () => {
    await expectZulipError(
      createBot(guest, { full_name: "Guest Bot", short_name: "guestbot" }),
      bad("Not allowed for guest users"),
    );
    const helper = (await realmBots(member)).find((b) => b.full_name === "Helper Bot")!;
    await expectZulipError(
      createBot({ email: helper.email, apiKey: helper.api_key }, { full_name: "Bot Bot", short_name: "botbot" }),
      bad("This endpoint does not accept bot requests."),
    );
    await createBot(moderator, { full_name: "Moderator Bot", short_name: "modbot" });
    await createBot(admin, { full_name: "Admin Bot", short_name: "adminbot" });
  });

  it("default channels are not kept: the client is told they were ignored", async () => {
    const res = ok(
      await org
        .api(member)
        .post("/bots", { full_name: "Chan Bot", short_name: "chan", default_sending_stream: "general" }),
    );
    expect(res.ignored_parameters_unsupported).toEqual(["default_sending_stream"]);
  });
});

describe("GET /bots and register's realm_bots", () => {
  it("GET /bots lists the caller's own active bots, oldest first, with their keys", async () => {
    const { bots } = await org.call(identity.getBots, {}, member);
    expect(bots.map((b) => b.username)).toEqual([
      botEmail("helper"),
      botEmail("hook"),
      botEmail("conv"),
      botEmail("incoming"),
      botEmail("chan"),
    ]);
    expect(bots[0]).toEqual({
      username: botEmail("helper"),
      full_name: "Helper Bot",
      api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      avatar_url: expect.any(String),
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    });
    expect((await org.call(identity.getBots, {}, other)).bots).toEqual([]);
    await expectZulipError(org.call(identity.getBots, {}, guest), bad("Not allowed for guest users"));
  });

  it("realm_bots: every bot for administrators (deactivated too), one's own for others", async () => {
    const all = await realmBots(admin);
    expect(all.map((b) => b.email).sort()).toEqual(
      ["helper", "hook", "conv", "incoming", "modbot", "adminbot", "chan"].map(botEmail).sort(),
    );
    expect((await realmBots(moderator)).map((b) => b.email)).toEqual([botEmail("modbot")]);
    expect(await realmBots(other)).toEqual([]);
  });
});

describe("PATCH /bots/{bot_id}", () => {
  it("the owner renames a bot: realm_user to everyone, realm_bot update to its administrators", async () => {
    const admins = await EventReader.register(org.api(admin), {
      event_types: JSON.stringify(["realm_bot", "realm_user"]),
    });
    const bot = await createBot(member, { full_name: "Rename Bot", short_name: "rename" });
    // the creation's events, which may come after a queue registered once it returned
    await admins.until((es) => es.some((e) => e.type === "realm_bot" && e.op === "add"));
    await admins.until((es) => es.some((e) => e.type === "realm_user" && e.op === "add"));
    const created = admins.events.length;
    const reply = await org.call(identity.updateBot, { bot_id: bot.user_id, full_name: "Renamed Bot" }, member);
    expect(reply).toEqual({
      result: "success",
      msg: "",
      full_name: "Renamed Bot",
      avatar_url: expect.any(String),
      service_interface: 1,
      service_payload_url: null,
      config_data: null,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      bot_owner: member.email,
    });
    await admins.until((es) => es.length >= created + 2);
    expect(withoutIds(admins.events.slice(created))).toEqual([
      { type: "realm_user", op: "update", person: { user_id: bot.user_id, full_name: "Renamed Bot" } },
      { type: "realm_bot", op: "update", bot: { user_id: bot.user_id, full_name: "Renamed Bot" } },
    ]);
  });

  it("an administrator gives a bot to another member: the old owner loses it, the new one gains it", async () => {
    const bot = await createBot(member, { full_name: "Moving Bot", short_name: "moving" });
    const oldOwner = await EventReader.register(org.api(member), { event_types: JSON.stringify(["realm_bot"]) });
    const newOwner = await EventReader.register(org.api(other), { event_types: JSON.stringify(["realm_bot"]) });
    const admins = await EventReader.register(org.api(admin), { event_types: JSON.stringify(["realm_bot"]) });
    const reply = await org.call(identity.updateBot, { bot_id: bot.user_id, bot_owner_id: other.userId }, admin);
    expect(reply.bot_owner).toBe(other.email);
    await oldOwner.until((es) => es.length > 0);
    expect(withoutIds(oldOwner.events)).toEqual([{ type: "realm_bot", op: "delete", bot: { user_id: bot.user_id } }]);
    await newOwner.until((es) => es.length > 0);
    expect(withoutIds(newOwner.events)).toEqual([
      {
        type: "realm_bot",
        op: "add",
        bot: expect.objectContaining({ user_id: bot.user_id, owner_id: other.userId, api_key: bot.api_key }),
      },
    ]);
    await admins.until((es) => es.length > 0);
    expect(withoutIds(admins.events)).toEqual([
      { type: "realm_bot", op: "update", bot: { user_id: bot.user_id, owner_id: other.userId } },
    ]);
    expect((await org.call(identity.getBots, {}, other)).bots.map((b) => b.username)).toContain(botEmail("moving"));
    await expectZulipError(
      org.call(identity.updateBot, { bot_id: bot.user_id, bot_owner_id: 999_999 }, admin),
      bad("Failed to change owner, no such user"),
    );
    await expectZulipError(
      org.call(identity.updateBot, { bot_id: bot.user_id, bot_owner_id: bot.user_id }, admin),
      bad("Failed to change owner, bots can't own other bots"),
    );
  });

  it("an outgoing webhook's URL and an embedded bot's configuration change", async () => {
    const hook = (await realmBots(member)).find((b) => b.email === botEmail("hook"))!;
    await org.call(
      identity.updateBot,
      { bot_id: hook.user_id, service_payload_url: JSON.stringify("https://new.example.com/"), service_interface: 1 },
      member,
    );
    const conv = (await realmBots(member)).find((b) => b.email === botEmail("conv"))!;
    await org.call(identity.updateBot, { bot_id: conv.user_id, config_data: { lang: "en" } }, member);
    const after = await realmBots(member);
    expect(after.find((b) => b.user_id === hook.user_id)!.services).toEqual([
      { base_url: "https://new.example.com/", interface: 1, token: (hook.services[0] as { token: string }).token },
    ]);
    expect(after.find((b) => b.user_id === conv.user_id)!.services).toEqual([
      { service_name: "converter", config_data: { unit: "si", lang: "en" } },
    ]);
  });

  it("refuses those who do not administer the bot, and non-bots", async () => {
    const bot = (await realmBots(member)).find((b) => b.email === botEmail("helper"))!;
    for (const by of [moderator, other]) {
      await expectZulipError(
        org.call(identity.updateBot, { bot_id: bot.user_id, full_name: "Mine" }, by),
        bad("Insufficient permission"),
      );
    }
    await expectZulipError(
      org.call(identity.updateBot, { bot_id: bot.user_id, full_name: "Mine" }, guest),
      bad("Not allowed for guest users"),
    );
    await expectZulipError(
      org.call(identity.updateBot, { bot_id: member.userId, full_name: "Mine" }, admin),
      bad("No such bot"),
    );
    await expectZulipError(
      org.call(identity.updateBot, { bot_id: 999_999, full_name: "Mine" }, admin),
      bad("No such bot"),
    );
    expect((await realmBots(member)).find((b) => b.user_id === bot.user_id)!.full_name).toBe("Helper Bot");
  });
});

describe("POST /bots/{bot_id}/api_key/regenerate", () => {
  it("the owner gets a new key; the old one is refused at once; administrators hear realm_bot update", async () => {
    const bot = await createBot(member, { full_name: "Key Bot", short_name: "keybot" });
    const creds = { email: botEmail("keybot"), apiKey: bot.api_key };
    ok(await org.api(creds).get("/users/me"));
    const admins = await EventReader.register(org.api(admin), { event_types: JSON.stringify(["realm_bot"]) });
    const { api_key } = await org.call(identity.regenerateBotApiKey, { bot_id: bot.user_id }, member);
    expect(api_key).not.toBe(bot.api_key);
    await expectZulipError(org.api(creds).get("/users/me"), {
      status: 401,
      code: "INVALID_API_KEY",
      msg: "Invalid API key",
    });
    ok(await org.api({ ...creds, apiKey: api_key }).get("/users/me"));
    expect((await org.call(identity.getBots, {}, member)).bots.find((b) => b.username === creds.email)!.api_key).toBe(
      api_key,
    );
    await admins.until((es) => es.length > 0);
    expect(withoutIds(admins.events)).toEqual([
      { type: "realm_bot", op: "update", bot: { user_id: bot.user_id, api_key } },
    ]);
    await expectZulipError(
      org.call(identity.regenerateBotApiKey, { bot_id: bot.user_id }, other),
      bad("Insufficient permission"),
    );
    await expectZulipError(
      org.call(identity.regenerateBotApiKey, { bot_id: bot.user_id }, guest),
      bad("Not allowed for guest users"),
    );
    await org.call(identity.regenerateBotApiKey, { bot_id: bot.user_id }, admin);
  });
});

describe("DELETE /bots/{bot_id} and reactivation", () => {
  it("the owner deactivates a bot; it leaves GET /bots, stays in the administrators' realm_bots; reactivation brings it back", async () => {
    const bot = await createBot(member, { full_name: "Sleepy Bot", short_name: "sleepy" });
    const creds = { email: botEmail("sleepy"), apiKey: bot.api_key };
    ok(await org.api(creds).get("/users/me"));
    await expectZulipError(
      org.call(identity.deactivateBot, { bot_id: bot.user_id }, other),
      bad("Insufficient permission"),
    );
    await expectZulipError(org.call(identity.deactivateBot, { bot_id: member.userId }, admin), bad("No such bot"));
    expect(await org.call(identity.deactivateBot, { bot_id: bot.user_id }, member)).toEqual({
      result: "success",
      msg: "",
    });
    await expectZulipError(org.api(creds).get("/users/me"), {
      status: 401,
      code: "USER_DEACTIVATED",
      msg: "Account is deactivated",
    });
    expect((await org.call(identity.getBots, {}, member)).bots.map((b) => b.username)).not.toContain(creds.email);
    expect((await realmBots(admin)).find((b) => b.user_id === bot.user_id)!.is_active).toBe(false);

    const owner = await EventReader.register(org.api(member), { event_types: JSON.stringify(["realm_bot"]) });
    await org.call(identity.reactivateUser, { user_id: bot.user_id }, member);
    ok(await org.api(creds).get("/users/me"));
    await owner.until((es) => es.length > 0);
    expect(withoutIds(owner.events)).toEqual([
      { type: "realm_bot", op: "update", bot: { user_id: bot.user_id, is_active: true } },
    ]);
  });

  it("a bot whose name an active user took cannot be reactivated; one whose owner left passes to whoever reactivates it", async () => {
    const leaving = await org.makeUser("leaving");
    const bot = await createBot(leaving, { full_name: "Orphan Bot", short_name: "orphan" });
    await org.call(identity.deactivateUser, { user_id: leaving.userId }, admin);
    await org.call(identity.reactivateUser, { user_id: bot.user_id }, admin);
    const { user } = await org.call(identity.getUser, { user_id: bot.user_id }, admin);
    expect(user).toMatchObject({ is_active: true, bot_owner_id: admin.userId });

    const twin = await createBot(member, { full_name: "Twin Bot", short_name: "twin" });
    await org.call(identity.deactivateBot, { bot_id: twin.user_id }, member);
    await createBot(member, { full_name: "Twin Bot", short_name: "twin2" });
    await expectZulipError(
      org.call(identity.reactivateUser, { user_id: twin.user_id }, member),
      bad(
        'There is already an active bot named "Twin Bot" in this organization. To reactivate this bot, you must rename or deactivate the other one first.',
      ),
    );
  });
});
