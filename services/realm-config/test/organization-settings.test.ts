/**
 * PATCH /realm for the organization's profile, sign-up, preview, mail, call
 * and channel settings (Zulip's update_realm), and what register gives for
 * them and for the server-level keys realm-config answers.
 */
import { createHash } from "node:crypto";
import { messaging, notifications, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { registerKeyProblems, usersOfEveryRole, type RoleUser } from "./helpers";

let org: TestOrganization;
let users: RoleUser[];
const as = (label: string) => users.find((u) => u.label === label)!.user;
beforeAll(async () => {
  org = await testOrganization();
  users = await usersOfEveryRole(org);
});
afterAll(() => org?.stop());

const update = (params: ParamsIn<typeof realmConfig.updateRealm>, user: Credentials = org.owner) =>
  org.call(realmConfig.updateRealm, params, user);
const register = async (fetch_event_types = ["realm"], user: Credentials = org.owner) =>
  (await org.call(notifications.registerQueue, { fetch_event_types }, user)) as unknown as Record<string, unknown>;
const pick = (state: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, state[k]]));

const DEFAULTS = {
  realm_description: "",
  realm_default_language: "en",
  realm_default_code_block_language: "",
  realm_inline_image_preview: true,
  realm_inline_url_embed_preview: false,
  realm_mandatory_topics: false,
  realm_require_unique_names: false,
  realm_name_changes_disabled: false,
  realm_email_changes_disabled: false,
  realm_avatar_changes_disabled: false,
  realm_digest_emails_enabled: false,
  realm_digest_weekday: 1,
  realm_send_welcome_emails: true,
  realm_message_content_allowed_in_email_notifications: true,
  realm_want_advertise_in_communities_directory: false,
  realm_emails_restricted_to_domains: false,
  realm_invite_required: true,
  realm_disallow_disposable_email_addresses: true,
  realm_enable_guest_user_dm_warning: true,
  realm_enable_guest_user_indicator: true,
  realm_waiting_period_threshold: 0,
  realm_video_chat_provider: 1,
  realm_jitsi_server_url: null,
  jitsi_server_url: "https://meet.jit.si",
  realm_giphy_rating: 2,
  realm_org_type: 0,
  realm_moderation_request_channel_id: -1,
  realm_signup_announcements_stream_id: -1,
  realm_zulip_update_announcements_stream_id: -1,
  realm_create_public_stream_policy: 1,
  realm_create_private_stream_policy: 1,
  realm_create_web_public_stream_policy: 7,
  realm_wildcard_mention_policy: 5,
};

describe("register", () => {
  it("gives Zulip's defaults of a new organization, the server's configuration, each as zulip.yaml documents it", async () => {
    const state = await register(["realm", "realm_billing", "onboarding_steps"]);
    expect(pick(state, Object.keys(DEFAULTS))).toEqual(DEFAULTS);
    expect(state).toMatchObject({
      realm_authentication_methods: { Email: { enabled: true, available: true } },
      realm_icon_url: `https://secure.gravatar.com/avatar/${createHash("md5").update(String(org.realm.id)).digest("hex")}?d=identicon`,
      realm_icon_source: "G",
      realm_logo_source: "D",
      realm_night_logo_source: "D",
      realm_available_video_chat_providers: {
        disabled: { name: "None", id: 0 },
        jitsi_meet: { name: "Jitsi Meet", id: 1 },
      },
      realm_plan_type: 1,
      zulip_plan_is_not_limited: true,
      realm_upload_quota_mib: null,
      realm_push_notifications_enabled_end_timestamp: null,
      password_min_length: 6,
      password_max_length: 100,
      password_min_guesses: 10000,
      server_typing_started_expiry_period_milliseconds: 15000,
      server_typing_stopped_wait_period_milliseconds: 5000,
      server_typing_started_wait_period_milliseconds: 10000,
      server_jitsi_server_url: "https://meet.jit.si",
      giphy_api_key: "",
      // the limit POST /user_uploads applies
      max_file_upload_size_mib: 25,
      realm_billing: { has_pending_sponsorship_request: false },
      navigation_tour_video_url: null,
    });
    expect(state).not.toHaveProperty("demo_organization_scheduled_deletion_date");
    const permissions = state.server_supported_permission_settings as Record<string, Record<string, unknown>>;
    expect(permissions.realm!.can_create_web_public_channel_group).toEqual({
      require_system_group: true,
      allow_internet_group: false,
      allow_nobody_group: true,
      allow_everyone_group: false,
      default_group_name: "role:owners",
      default_for_system_groups: null,
      allowed_system_groups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"],
    });
    expect(Object.keys(permissions.stream!)).toContain("can_send_message_group");
    expect(Object.keys(permissions.group!)).toContain("can_manage_group");
    // max_channel_folder_* (FL 389), max_reminder_note_length (FL 415) and
    // realm_welcome_message_custom_text (FL 416) are newer than zulip.yaml
    const {
      queue_id: _q,
      last_event_id: _l,
      result: _r,
      msg: _m,
      max_channel_folder_name_length: _n,
      max_channel_folder_description_length: _d,
      max_reminder_note_length: reminderNoteLimit,
      realm_welcome_message_custom_text: welcomeText,
      ...keys
    } = state;
    expect(registerKeyProblems(keys)).toEqual([]);
    // Zulip's settings.MAX_REMINDER_NOTE_LENGTH, the limit POST /reminders checks
    expect(reminderNoteLimit).toBe(messaging.MAX_REMINDER_NOTE_LENGTH);
    expect(reminderNoteLimit).toBe(1000);
    expect(welcomeText).toBe("");
  });

  it("realm_billing and navigation_tour_video_url only under their own event types", async () => {
    const state = await register(["realm"]);
    expect(state).not.toHaveProperty("realm_billing");
    expect(state).not.toHaveProperty("navigation_tour_video_url");
    expect(await register(["realm_billing"])).toMatchObject({
      realm_billing: { has_pending_sponsorship_request: false },
    });
  });
});

describe("PATCH /realm: organization settings", () => {
  it("changes each setting sent, answers Zulip's reply, sends one realm update each, and register shows them", async () => {
    const reader = await EventReader.register(org.api(as("member")), { event_types: ["realm"] });
    const flags = {
      inline_image_preview: false,
      inline_url_embed_preview: true,
      require_unique_names: true,
      name_changes_disabled: true,
      email_changes_disabled: true,
      avatar_changes_disabled: true,
      digest_emails_enabled: true,
      send_welcome_emails: false,
      message_content_allowed_in_email_notifications: false,
      want_advertise_in_communities_directory: true,
      enable_guest_user_dm_warning: false,
      enable_guest_user_indicator: false,
    };
    const numbers = { video_chat_provider: 0, giphy_rating: 5, digest_weekday: 4, org_type: 10 };
    const reply = await update({
      description: "We **build** things",
      default_language: "de",
      default_code_block_language: "python",
      jitsi_server_url: "https://jitsi.example.com",
      ...flags,
      ...numbers,
      invite_required: true, // unchanged: not in the reply, no event
    });
    expect(reply).toEqual({
      result: "success",
      msg: "",
      description: "updated",
      default_language: "updated",
      default_code_block_language: "updated",
      jitsi_server_url: "updated",
      ...flags,
      ...numbers,
    });
    const count = 4 + Object.keys(flags).length + Object.keys(numbers).length;
    const events = await reader.until((e) => e.length >= count);
    const byProperty = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      String(a.property).localeCompare(String(b.property));
    expect(events.map(({ id: _, ...e }) => e).sort(byProperty)).toEqual(
      [
        { type: "realm", op: "update", property: "description", value: "We **build** things" },
        { type: "realm", op: "update", property: "default_language", value: "de" },
        { type: "realm", op: "update", property: "default_code_block_language", value: "python" },
        { type: "realm", op: "update", property: "jitsi_server_url", value: "https://jitsi.example.com" },
        ...Object.entries({ ...flags, ...numbers }).map(([property, value]) => ({
          type: "realm",
          op: "update",
          property,
          value,
        })),
      ].sort(byProperty),
    );
    const state = await register();
    expect(state).toMatchObject({
      realm_description: "<p>We <strong>build</strong> things</p>",
      realm_default_language: "de",
      realm_default_code_block_language: "python",
      realm_jitsi_server_url: "https://jitsi.example.com",
      jitsi_server_url: "https://jitsi.example.com",
      ...Object.fromEntries(Object.entries({ ...flags, ...numbers }).map(([k, v]) => [`realm_${k}`, v])),
    });
    // GET /server_settings shows the description rendered and the same icon
    expect(await org.call(realmConfig.getServerSettings, {}, org.owner)).toMatchObject({
      realm_description: "<p>We <strong>build</strong> things</p>",
      realm_icon: state.realm_icon_url,
    });
    // JSON text, as Zulip's web app sends it
    const jsonText = await org.api(org.owner).patch("/realm", { jitsi_server_url: '"https://meet.example.org"' });
    expect(jsonText.body).toEqual({ result: "success", msg: "", jitsi_server_url: "updated" });
    expect((await register()).realm_jitsi_server_url).toBe("https://meet.example.org");
    // "default" goes back to the server's Jitsi: null in the reply, event and register
    expect(await update({ jitsi_server_url: "default" })).toEqual({
      result: "success",
      msg: "",
      jitsi_server_url: null,
    });
    expect(await register()).toMatchObject({ realm_jitsi_server_url: null, jitsi_server_url: "https://meet.jit.si" });
    // all sent again: nothing changes, nothing is sent
    expect(await update({ ...flags, ...numbers, default_language: "de" })).toEqual({ result: "success", msg: "" });
  });

  it("the deprecated mandatory_topics sets topics_policy", async () => {
    expect(await update({ mandatory_topics: true })).toEqual({
      result: "success",
      msg: "",
      topics_policy: "disable_empty_topic",
    });
    expect(await register()).toMatchObject({
      realm_mandatory_topics: true,
      realm_topics_policy: "disable_empty_topic",
    });
    await update({ mandatory_topics: false });
    expect(await register()).toMatchObject({ realm_mandatory_topics: false, realm_topics_policy: "allow_empty_topic" });
  });

  it("the deprecated allow_edit_history sets message_edit_history_visibility_policy", async () => {
    expect(await update({ allow_edit_history: false })).toEqual({
      result: "success",
      msg: "",
      message_edit_history_visibility_policy: "none",
    });
    expect(await register()).toMatchObject({
      realm_allow_edit_history: false,
      realm_message_edit_history_visibility_policy: "none",
    });
    await update({ allow_edit_history: true });
    expect(await register()).toMatchObject({
      realm_allow_edit_history: true,
      realm_message_edit_history_visibility_policy: "all",
    });
  });

  it("the deprecated policies follow the group settings that replaced them", async () => {
    await update({
      can_create_public_channel_group: { new: 2 },
      can_mention_many_users_group: { new: 6 },
    });
    expect(await register()).toMatchObject({ realm_create_public_stream_policy: 2, realm_wildcard_mention_policy: 1 });
    await update({
      can_create_public_channel_group: { new: 5 },
      can_mention_many_users_group: { new: 2 },
    });
  });

  it("refuses bad values with Zulip's errors, changing nothing", async () => {
    const before = await register();
    const refused = (params: ParamsIn<typeof realmConfig.updateRealm>, msg: string) =>
      expectZulipError(update({ name: "Never", ...params }), badRequestError(msg));
    await refused({ default_language: "xx" }, "Invalid language 'xx'");
    await refused({ video_chat_provider: 3 }, "Invalid video_chat_provider 3");
    await refused({ giphy_rating: 9 }, "Invalid giphy_rating 9");
    await refused({ digest_weekday: 7 }, "Invalid digest_weekday");
    await refused({ org_type: 11 }, "Invalid org_type");
    await refused({ waiting_period_threshold: -1 }, "waiting_period_threshold is too small");
    await refused({ jitsi_server_url: "not a url" }, "jitsi_server_url is not an allowed_type");
    await refused(
      { jitsi_server_url: `https://x.example/${"a".repeat(200)}` },
      "jitsi_server_url is not an allowed_type",
    );
    await refused({ signup_announcements_stream_id: 999999 }, "Invalid channel ID");
    await refused(
      { authentication_methods: { GitHub: true } },
      "Invalid authentication method: GitHub. Valid methods are: ['Email']",
    );
    await refused({ authentication_methods: { Email: false } }, "At least one authentication method must be enabled.");
    // email and password is the one method, always on: confirming it changes nothing
    expect(await update({ authentication_methods: { Email: true } })).toEqual({ result: "success", msg: "" });
    const tooLong = await org.api(org.owner).patch("/realm", { description: "d".repeat(1001) });
    expect(tooLong.status).toBe(400);
    expect(await register()).toEqual({ ...before, queue_id: expect.any(String) });
  });

  it("channel settings: a channel the administrator can see (private for moderation requests), or -1 for none", async () => {
    const { id } = await org.call(
      messaging.createChannel,
      { name: "signups", subscribers: [org.owner.userId], invite_only: true },
      org.owner,
    );
    const { id: publicId } = await org.call(
      messaging.createChannel,
      { name: "lobby", subscribers: [org.owner.userId] },
      org.owner,
    );
    // the moderation request channel must be private; nothing of the request is changed
    await expectZulipError(
      update({ signup_announcements_stream_id: publicId, moderation_request_channel_id: publicId }),
      badRequestError("Moderation request channel must be private."),
    );
    expect((await register()).realm_signup_announcements_stream_id).toBe(-1);
    const reader = await EventReader.register(org.api(org.owner), { event_types: ["realm"] });
    expect(
      await update({
        signup_announcements_stream_id: id,
        zulip_update_announcements_stream_id: id,
        moderation_request_channel_id: id,
      }),
    ).toEqual({
      result: "success",
      msg: "",
      signup_announcements_stream_id: id,
      zulip_update_announcements_stream_id: id,
      moderation_request_channel_id: id,
    });
    expect(await register()).toMatchObject({
      realm_signup_announcements_stream_id: id,
      realm_zulip_update_announcements_stream_id: id,
      realm_moderation_request_channel_id: id,
    });
    await update({ signup_announcements_stream_id: -1 });
    expect((await register()).realm_signup_announcements_stream_id).toBe(-1);
    const events = await reader.until((e) => e.length >= 4);
    expect(events.map(({ id: _, ...e }) => e)).toEqual([
      { type: "realm", op: "update", property: "signup_announcements_stream_id", value: id },
      { type: "realm", op: "update", property: "zulip_update_announcements_stream_id", value: id },
      { type: "realm", op: "update", property: "moderation_request_channel_id", value: id },
      { type: "realm", op: "update", property: "signup_announcements_stream_id", value: -1 },
    ]);
  });

  it("permission matrix: administrators change these settings; owners alone the sign-up rules and the waiting period", async () => {
    const ownerOnly: Array<ParamsIn<typeof realmConfig.updateRealm>> = [
      { invite_required: false },
      { emails_restricted_to_domains: true },
      { disallow_disposable_email_addresses: false },
      { waiting_period_threshold: 3 },
      { authentication_methods: { Email: true } },
    ];
    for (const { label, user } of users) {
      const admin = label === "owner" || label === "administrator";
      const call = update({ digest_weekday: label === "owner" ? 2 : 3 }, user);
      if (admin) expect((await call).result).toBe("success");
      else
        await expectZulipError(
          call,
          badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL"),
        );
      for (const params of ownerOnly) {
        const owned = update(params, user);
        if (label === "owner") expect((await owned).result).toBe("success");
        else
          await expectZulipError(
            owned,
            badRequestError(
              admin ? "Must be an organization owner" : "Must be an organization administrator",
              "UNAUTHORIZED_PRINCIPAL",
            ),
          );
      }
    }
    expect(await register()).toMatchObject({
      realm_digest_weekday: 3,
      realm_invite_required: false,
      realm_emails_restricted_to_domains: true,
      realm_disallow_disposable_email_addresses: false,
      realm_waiting_period_threshold: 3,
    });
  });
});
