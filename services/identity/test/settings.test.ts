import { ok } from "@teamchat/shared/src/testing/api";
import { AUTH_INVALIDATED, BusClient, registerState } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { makeUser, type TestUser } from "../../../test/support/users";

let sys: TestSystem;
let alice: TestUser;
let bus: BusClient;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  alice = await makeUser(sys, "alice");
  bus = new BusClient(sys.nc);
});
afterAll(() => sys?.stop());

const bad = (msg: string) => ({ result: "error", code: "BAD_REQUEST", msg });

/** identity's part of /register, as notifications asks for it. */
async function registerOf(userId: number, email: string, overrides: Record<string, unknown> = {}) {
  const actor = {
    userId,
    realmId: sys.realm.id,
    email,
    deliveryEmail: email,
    fullName: "",
    role: 400 as const,
    isBot: false,
  };
  return bus.request(
    registerState("identity"),
    {
      fetch_event_types: null,
      client_gravatar: false,
      include_subscribers: false,
      slim_presence: false,
      client_capabilities: {},
      ...overrides,
    },
    { realm: sys.realm, actor, requestId: "test" },
  );
}

describe("PATCH /settings", () => {
  it("changes settings, answers Zulip's empty success, and lists unknown parameters", async () => {
    const body = ok(
      await sys.api(alice).patch("/settings", {
        twenty_four_hour_time: true,
        color_scheme: 2,
        emojiset: "text",
        web_home_view: "all_messages",
        receives_typing_notifications: false,
        timezone: "Europe/Paris",
        dense_mode: true,
      }),
    );
    expect(body).toEqual({ result: "success", msg: "", ignored_parameters_unsupported: ["dense_mode"] });
    const state = await registerOf(alice.userId, alice.email, { fetch_event_types: ["user_settings"] });
    expect(state.user_settings).toMatchObject({
      twenty_four_hour_time: true,
      color_scheme: 2,
      emojiset: "text",
      web_home_view: "all_messages",
      receives_typing_notifications: false,
      timezone: "Europe/Paris",
      enter_sends: false,
    });
    expect(ok(await sys.api(alice).get("/users/me")).timezone).toBe("Europe/Paris");
  });

  it("a value outside an enumeration → 400 with Zulip's message, nothing changed", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ color_scheme: 7, twenty_four_hour_time: false }, "Invalid color_scheme"],
      [{ emojiset: "apple" }, "Invalid emojiset"],
      [{ web_home_view: "stream" }, "Invalid web_home_view"],
      [{ demote_inactive_streams: 0 }, "Invalid demote_inactive_streams"],
      [{ user_list_style: 4 }, "Invalid user_list_style"],
      [{ web_animate_image_previews: "sometimes" }, "Invalid web_animate_image_previews"],
      [{ web_stream_unreads_count_display_policy: 9 }, "Invalid web_stream_unreads_count_display_policy"],
      [{ email_address_visibility: 6 }, "Invalid email_address_visibility"],
      [{ desktop_icon_count_display: 5 }, "Invalid desktop_icon_count_display"],
      [{ default_language: "xx" }, "Invalid default_language"],
      [{ notification_sound: "boom" }, "Invalid notification sound 'boom'"],
      [{ email_notifications_batching_period_seconds: 0 }, "Invalid email batching period: 0 seconds"],
      [{ timezone: "Mars/Olympus" }, "timezone is not a recognized time zone"],
      [{ enter_sends: "maybe" }, "enter_sends is not valid JSON"],
      [{ full_name: "x" }, "Name too short!"],
    ];
    for (const [params, msg] of cases) {
      const res = await sys.api(alice).patch("/settings", params);
      expect([res.status, res.body]).toEqual([400, bad(msg)]);
    }
    const state = await registerOf(alice.userId, alice.email, { fetch_event_types: ["user_settings"] });
    expect(state.user_settings).toMatchObject({ color_scheme: 2, twenty_four_hour_time: true, emojiset: "text" });
  });

  it("the deprecated aliases /settings/display and /settings/notifications do the same", async () => {
    ok(await sys.api(alice).patch("/settings/display", { left_side_userlist: true }));
    ok(await sys.api(alice).patch("/settings/notifications", { enable_sounds: false }));
    expect((await sys.api(alice).patch("/settings/notifications", { color_scheme: 0 })).body).toEqual(
      bad("Invalid color_scheme"),
    );
    const state = await registerOf(alice.userId, alice.email, { fetch_event_types: ["user_settings"] });
    expect(state.user_settings).toMatchObject({ left_side_userlist: true, enable_sounds: false });
  });

  it("full_name changes for everyone", async () => {
    ok(await sys.api(alice).patch("/settings", { full_name: "Alice Liddell" }));
    expect(ok(await sys.api(sys.owner).get(`/users/${alice.userId}`)).user.full_name).toBe("Alice Liddell");
  });

  it("new_password needs the old one; afterwards only the new one logs in", async () => {
    const bob = await makeUser(sys, "bob");
    expect(
      (await sys.api(bob).patch("/settings", { old_password: "wrong", new_password: "new-secret-9" })).body,
    ).toEqual(bad("Wrong password!"));
    expect((await sys.api(bob).patch("/settings", { new_password: "new-secret-9" })).body).toEqual(
      bad("Wrong password!"),
    );
    ok(await sys.api(bob).patch("/settings", { old_password: bob.password, new_password: "new-secret-9" }));
    expect((await sys.api(null).post("/fetch_api_key", { username: bob.email, password: bob.password })).status).toBe(
      401,
    );
    ok(await sys.api(null).post("/fetch_api_key", { username: bob.email, password: "new-secret-9" }));
  });

  it("email starts a confirmation: success, the address is unchanged; taken or invalid addresses fail", async () => {
    ok(await sys.api(alice).patch("/settings", { email: "alice.new@example.com" }));
    expect(ok(await sys.api(alice).get("/users/me")).delivery_email).toBe(alice.email);
    expect((await sys.api(alice).patch("/settings", { email: sys.owner.email })).body).toEqual(
      bad("Already has an account."),
    );
    expect((await sys.api(alice).patch("/settings", { email: "nope" })).body).toEqual(bad("Invalid address."));
  });
});

describe("events", () => {
  it("settings go to the user alone, names and visibility to everyone, and gateways drop credentials", async () => {
    const dave = await makeUser(sys, "dave");
    const seen: Array<{ subject: string; data: Record<string, unknown> }> = [];
    const subs = ["events.identity.>", AUTH_INVALIDATED].map((subject) =>
      sys.nc.subscribe(subject, { callback: (_e, m) => void seen.push({ subject: m.subject, data: m.json() }) }),
    );
    ok(await sys.api(dave).patch("/settings", { enter_sends: true, full_name: "Dave D", email_address_visibility: 4 }));
    await sys.nc.flush();
    await new Promise((r) => setTimeout(r, 200));
    subs.forEach((s) => s.unsubscribe());
    const realmId = sys.realm.id;
    expect(seen).toEqual(
      expect.arrayContaining([
        {
          subject: "events.identity.user_settings",
          data: {
            realmId,
            userIds: [dave.userId],
            event: { type: "user_settings", op: "update", property: "enter_sends", value: true },
          },
        },
        {
          subject: "events.identity.realm_user",
          data: {
            realmId,
            userIds: "all",
            event: { type: "realm_user", op: "update", person: { user_id: dave.userId, full_name: "Dave D" } },
          },
        },
        {
          subject: "events.identity.realm_user",
          data: {
            realmId,
            userIds: "all",
            event: {
              type: "realm_user",
              op: "update",
              person: { user_id: dave.userId, new_email: `user${dave.userId}@${sys.realm.host.split(":")[0]}` },
            },
          },
        },
        { subject: AUTH_INVALIDATED, data: { userId: dave.userId } },
      ]),
    );
  });
});

describe("identity's /register state", () => {
  it("defaults are Zulip's; realm_users holds active users with the caller; legacy keys only without user_settings_object", async () => {
    const carol = await makeUser(sys, "carol");
    const state = await registerOf(carol.userId, carol.email);
    expect(state.user_settings).toMatchObject({
      receives_typing_notifications: true,
      email_address_visibility: 1,
      web_home_view: "inbox",
      emojiset: "google",
      timezone: "",
      enable_stream_desktop_notifications: false,
      enable_desktop_notifications: true,
    });
    expect(state).toMatchObject({
      user_id: carol.userId,
      email: carol.email,
      delivery_email: carol.email,
      full_name: "User carol",
      is_admin: false,
      is_owner: false,
      is_moderator: false,
      is_guest: false,
      avatar_source: "G",
      cross_realm_bots: [],
      realm_non_active_users: [],
      presences: {},
      realm_user_groups: [],
      twenty_four_hour_time: false,
      pm_content_in_desktop_notifications: true,
    });
    const users = state.realm_users as Array<Record<string, unknown>>;
    expect(users.map((u) => u.user_id)).toEqual(expect.arrayContaining([sys.owner.userId, carol.userId]));
    expect(users.find((u) => u.user_id === carol.userId)).toMatchObject({
      profile_data: {},
      avatar_url: expect.any(String),
    });

    const modern = await registerOf(carol.userId, carol.email, {
      fetch_event_types: ["user_settings"],
      client_capabilities: { user_settings_object: true },
    });
    expect(Object.keys(modern)).toEqual(["user_settings"]);
  });
});
