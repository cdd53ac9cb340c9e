import {
  BusClient,
  SYSTEM_GROUPS,
  createLogger,
  identity,
  identityEvents,
  subscribeEvent,
  type ParamsIn,
  type RegisterStateParams,
} from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser;
let bus: BusClient;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("alice");
  bus = new BusClient(org.nc);
});
afterAll(() => org?.stop());

const settings = (user: Credentials, params: ParamsIn<typeof identity.updateSettings>) =>
  org.call(identity.updateSettings, params, user);
const me = (user: Credentials) => org.call(identity.getOwnUser, {}, user);

/** identity's part of /register, as notifications asks for it. */
async function registerOf(userId: number, email: string, overrides: Partial<RegisterStateParams> = {}) {
  const actor = {
    userId,
    realmId: org.realm.id,
    email,
    deliveryEmail: email,
    fullName: "",
    role: 400 as const,
    isBot: false,
  };
  return bus.request(
    identity.registerState,
    {
      fetch_event_types: null,
      client_gravatar: false,
      include_subscribers: false,
      slim_presence: false,
      client_capabilities: {},
      ...overrides,
    },
    { realm: org.realm, actor, requestId: "test" },
  );
}

describe("PATCH /settings", () => {
  it("changes settings, answers Zulip's empty success, and lists unknown parameters", async () => {
    // dense_mode is unknown to this server: what the contract's types refuse
    const res = await org.api(alice).patch("/settings", {
      twenty_four_hour_time: true,
      color_scheme: 2,
      emojiset: "text",
      web_home_view: "all_messages",
      receives_typing_notifications: false,
      timezone: "Europe/Paris",
      dense_mode: true,
    });
    expect([res.status, res.body]).toEqual([
      200,
      { result: "success", msg: "", ignored_parameters_unsupported: ["dense_mode"] },
    ]);
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
    expect((await me(alice)).timezone).toBe("Europe/Paris");
  });

  it("a value outside an enumeration → 400 with Zulip's message, nothing changed", async () => {
    // Raw requests: the contract's types refuse most of these values.
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
      await expectZulipError(org.api(alice).patch("/settings", params), bad(msg));
    }
    const state = await registerOf(alice.userId, alice.email, { fetch_event_types: ["user_settings"] });
    expect(state.user_settings).toMatchObject({ color_scheme: 2, twenty_four_hour_time: true, emojiset: "text" });
  });

  it("the deprecated aliases /settings/display and /settings/notifications do the same", async () => {
    await org.call(identity.updateDisplaySettings, { left_side_userlist: true }, alice);
    await org.call(identity.updateNotificationSettings, { enable_sounds: false }, alice);
    await expectZulipError(
      org.api(alice).patch("/settings/notifications", { color_scheme: 0 }),
      bad("Invalid color_scheme"),
    );
    const state = await registerOf(alice.userId, alice.email, { fetch_event_types: ["user_settings"] });
    expect(state.user_settings).toMatchObject({ left_side_userlist: true, enable_sounds: false });
  });

  it("full_name changes for everyone", async () => {
    await settings(alice, { full_name: "Alice Liddell" });
    expect((await org.call(identity.getUser, { user_id: alice.userId }, org.owner)).user.full_name).toBe(
      "Alice Liddell",
    );
  });

  it("new_password needs the old one; afterwards only the new one logs in", async () => {
    const bob = await org.makeUser("bob");
    await expectZulipError(
      settings(bob, { old_password: "wrong", new_password: "new-secret-9" }),
      bad("Wrong password!"),
    );
    await expectZulipError(settings(bob, { new_password: "new-secret-9" }), bad("Wrong password!"));
    await settings(bob, { old_password: bob.password, new_password: "new-secret-9" });
    await expectZulipError(org.call(identity.fetchApiKey, { username: bob.email, password: bob.password }, null), {
      status: 401,
      code: "AUTHENTICATION_FAILED",
      msg: "Your username or password is incorrect",
    });
    await org.call(identity.fetchApiKey, { username: bob.email, password: "new-secret-9" }, null);
  });

  it("email starts a confirmation: success, the address is unchanged; taken or invalid addresses fail", async () => {
    await settings(alice, { email: "alice.new@example.com" });
    expect((await me(alice)).delivery_email).toBe(alice.email);
    await expectZulipError(settings(alice, { email: org.owner.email }), bad("Already has an account."));
    await expectZulipError(settings(alice, { email: "nope" }), bad("Invalid address."));
  });
});

/**
 * What identity publishes on the bus, parsed with the catalogue's definitions,
 * with the subject it came on: this organization's client events, and the
 * credential invalidations of `userId` (they carry no organization).
 */
async function watchIdentityEvents(userId: number) {
  const seen: Array<{ subject: string; data: unknown }> = [];
  let onEvent = () => {};
  const keep = (subject: string, data: unknown) => {
    seen.push({ subject, data });
    onEvent();
  };
  const opts = { log: createLogger("test") };
  const realmId = org.realm.id;
  const subs = [
    subscribeEvent(org.nc, identityEvents.userSettings, (p, m) => p.realmId === realmId && keep(m.subject, p), opts),
    subscribeEvent(org.nc, identityEvents.realmUser, (p, m) => p.realmId === realmId && keep(m.subject, p), opts),
    subscribeEvent(org.nc, identityEvents.authInvalidated, (p, m) => p.userId === userId && keep(m.subject, p), opts),
  ];
  // The subscriptions are in place on the server before the test acts.
  await org.nc.flush();
  return {
    /** Resolves once `expected` are among the events seen (each arrival checks again). */
    arrived: (expected: unknown[]) =>
      new Promise<typeof seen>((resolve) => {
        onEvent = () => {
          if (expect.arrayContaining(expected).asymmetricMatch(seen)) resolve(seen);
        };
        onEvent();
      }),
    stop: () => subs.forEach((s) => s.unsubscribe()),
  };
}

describe("events", () => {
  it("settings go to the user alone, names and visibility to everyone, and gateways drop credentials", async () => {
    const dave = await org.makeUser("dave");
    const watcher = await watchIdentityEvents(dave.userId);
    await settings(dave, { enter_sends: true, full_name: "Dave D", email_address_visibility: 4 });
    const realmId = org.realm.id;
    const expected = [
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
            person: { user_id: dave.userId, new_email: `user${dave.userId}@${org.realm.host.split(":")[0]}` },
          },
        },
      },
      { subject: "events.identity.auth_invalidated", data: { userId: dave.userId } },
    ];
    const seen = await watcher.arrived(expected);
    watcher.stop();
    expect(seen).toEqual(expect.arrayContaining(expected));
  });
});

describe("identity's /register state", () => {
  it("defaults are Zulip's; realm_users holds active users with the caller; legacy keys only without user_settings_object", async () => {
    const carol = await org.makeUser("carol");
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
      cross_realm_bots: [
        expect.objectContaining({ full_name: "Notification Bot", is_system_bot: true }),
        expect.objectContaining({ full_name: "Welcome Bot", is_system_bot: true }),
      ],
      realm_non_active_users: [],
      presences: {},
      // the system groups only: no user-created groups here
      realm_user_groups: Object.entries(SYSTEM_GROUPS).map(([name, id]) =>
        expect.objectContaining({ id, name, is_system_group: true }),
      ),
      twenty_four_hour_time: false,
      pm_content_in_desktop_notifications: true,
    });
    const users = state.realm_users as Array<Record<string, unknown>>;
    expect(users.map((u) => u.user_id)).toEqual(expect.arrayContaining([org.owner.userId, carol.userId]));
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
