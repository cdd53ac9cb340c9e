import {
  BusClient,
  loadConfig,
  realmConfig,
  SYSTEM_GROUPS,
  ZULIP_VERSION,
  LAST_SYSTEM_GROUP_ID,
  ZULIP_FEATURE_LEVEL,
} from "@teamchat/shared";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { registerKeyProblems } from "./helpers";

let org: TestOrganization;
let bus: BusClient;
beforeAll(async () => {
  org = await testOrganization();
  bus = new BusClient(org.nc);
});
afterAll(() => org?.stop());

/** The shared system runs with the default heartbeat (test/support/global-setup.ts sets only the rate limit). */
const { EVENT_HEARTBEAT_SECONDS } = loadConfig({});

const ctx = () => ({ realm: org.realm, actor: null, requestId: "test" });
const register = (fetch_event_types: string[] | null) =>
  bus.request(
    realmConfig.registerState,
    {
      fetch_event_types,
      client_gravatar: true,
      include_subscribers: false,
      slim_presence: false,
      client_capabilities: {},
    },
    ctx(),
  );
/** Every key is in zulip.yaml's register-queue reply, with a value of the documented type. */
const expectDocumented = (state: Record<string, unknown>) => expect(registerKeyProblems(state)).toEqual([]);

const GROUPS = { owners: 1, administrators: 2, members: 5, everyone: 6 };

describe("getRealmSettings (internal)", () => {
  it("answers Zulip's limits, empty-topic name, retention, spectator access, message editing and group-setting defaults", async () => {
    const settings = await bus.request(realmConfig.getRealmSettings, {}, ctx());
    expect(settings).toEqual({
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      max_topic_length: 60,
      max_message_length: 10000,
      max_channel_folder_name_length: 60,
      max_channel_folder_description_length: 1024,
      realm_empty_topic_display_name: "general chat",
      topics_policy: "allow_empty_topic",
      enable_spectator_access: false,
      web_public_streams_enabled: false,
      message_retention_days: -1,
      new_stream_announcements_stream_id: null,
      default_code_block_language: "",
      moderation_request_channel_id: null,
      inline_image_preview: true,
      inline_url_embed_preview: false,
      avatar_changes_disabled: false,
      welcome_message_custom_text: "",
      allow_message_editing: true,
      message_content_edit_limit_seconds: 600,
      message_content_delete_limit_seconds: 600,
      message_edit_history_visibility_policy: "all",
      move_messages_within_stream_limit_seconds: 604800,
      move_messages_between_streams_limit_seconds: 604800,
      enable_read_receipts: true,
      can_access_all_users_group: GROUPS.everyone,
      can_add_custom_emoji_group: GROUPS.members,
      can_add_subscribers_group: GROUPS.members,
      can_create_bots_group: GROUPS.members,
      can_create_groups: GROUPS.members,
      can_create_private_channel_group: GROUPS.members,
      can_create_public_channel_group: GROUPS.members,
      can_create_web_public_channel_group: GROUPS.owners,
      can_create_write_only_bots_group: GROUPS.members,
      can_delete_any_message_group: GROUPS.administrators,
      can_delete_own_message_group: GROUPS.everyone,
      can_invite_users_group: GROUPS.members,
      can_manage_all_groups: GROUPS.owners,
      can_manage_billing_group: GROUPS.administrators,
      can_mention_many_users_group: GROUPS.administrators,
      can_move_messages_between_channels_group: GROUPS.members,
      can_move_messages_between_topics_group: GROUPS.everyone,
      can_resolve_topics_group: GROUPS.everyone,
      can_set_topics_policy_group: GROUPS.members,
      can_summarize_topics_group: GROUPS.everyone,
      create_multiuse_invite_group: GROUPS.administrators,
      direct_message_initiator_group: GROUPS.everyone,
      direct_message_permission_group: GROUPS.everyone,
    });
  });

  it("the system group table is fixed and documented in the contract", () => {
    expect(SYSTEM_GROUPS).toEqual({
      "role:owners": 1,
      "role:administrators": 2,
      "role:moderators": 3,
      "role:fullmembers": 4,
      "role:members": 5,
      "role:everyone": 6,
      "role:internet": 7,
      "role:nobody": 8,
    });
    expect(LAST_SYSTEM_GROUP_ID).toBe(8);
  });

  it("has no HTTP route", async () => {
    // raw: there is no contract to call, which is the point
    const res = await org.api(org.owner).get("/realm/settings");
    expect(res.status).toBe(404);
  });
});

describe("register state (realm-config's part of POST /register)", () => {
  it("fetch_event_types null: every group, all keys documented in zulip.yaml but the channel-folder ones", async () => {
    const state = await register(null);
    // register's channel-folder keys (Zulip feature level 389), max_reminder_note_length (FL 415) and
    // realm_welcome_message_custom_text (FL 416) are newer than zulip.yaml
    const {
      channel_folders,
      max_channel_folder_name_length,
      max_channel_folder_description_length,
      max_reminder_note_length,
      realm_welcome_message_custom_text,
      ...documented
    } = state;
    expectDocumented(documented);
    expect({
      channel_folders,
      max_channel_folder_name_length,
      max_channel_folder_description_length,
      max_reminder_note_length,
      realm_welcome_message_custom_text,
    }).toEqual({
      channel_folders: [],
      max_channel_folder_name_length: 60,
      max_channel_folder_description_length: 1024,
      max_reminder_note_length: 1000,
      realm_welcome_message_custom_text: "",
    });
    expect(state).toMatchObject({
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_merge_base: ZULIP_VERSION,
      realm_name: "Test Organization",
      realm_description: "",
      realm_uri: org.realm.uri,
      realm_url: org.realm.uri,
      realm_empty_topic_display_name: "general chat",
      realm_topics_policy: "allow_empty_topic",
      realm_message_retention_days: -1,
      realm_enable_spectator_access: false,
      realm_allow_message_editing: true,
      realm_message_content_edit_limit_seconds: 600,
      realm_message_content_delete_limit_seconds: 600,
      realm_message_edit_history_visibility_policy: "all",
      realm_allow_edit_history: true,
      realm_move_messages_within_stream_limit_seconds: 604800,
      realm_move_messages_between_streams_limit_seconds: 604800,
      realm_enable_read_receipts: true,
      realm_new_stream_announcements_stream_id: -1,
      realm_can_create_web_public_channel_group: GROUPS.owners,
      realm_can_create_public_channel_group: GROUPS.members,
      realm_can_create_private_channel_group: GROUPS.members,
      realm_can_add_subscribers_group: GROUPS.members,
      realm_default_external_accounts: {
        twitter: {
          text: "Twitter",
          url_pattern: "https://twitter.com/%(username)s",
          name: "Twitter username",
          hint: "",
        },
        github: { text: "GitHub", url_pattern: "https://github.com/%(username)s", name: "GitHub username", hint: "" },
      },
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      max_topic_length: 60,
      max_message_length: 10000,
      server_web_public_streams_enabled: false,
      event_queue_longpoll_timeout_seconds: EVENT_HEARTBEAT_SECONDS + 30,
      custom_profile_fields: [],
      custom_profile_field_types: {
        SHORT_TEXT: { id: 1, name: "Text (short)" },
        LONG_TEXT: { id: 2, name: "Text (long)" },
        SELECT: { id: 3, name: "List of options" },
        DATE: { id: 4, name: "Date" },
        URL: { id: 5, name: "Link" },
        USER: { id: 6, name: "Users" },
        EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
        PRONOUNS: { id: 8, name: "Pronouns" },
      },
      realm_domains: [],
      realm_emoji: {},
      realm_linkifiers: [],
      realm_filters: [],
      realm_playgrounds: [],
    });
    const now = Date.now() / 1000;
    expect(state.realm_date_created).toBeGreaterThan(now - 600);
    expect(state.realm_date_created).toBeLessThanOrEqual(now);
    expect(state.server_generation).toBeLessThanOrEqual(now);
    expect(registerKeyProblems({ channel_folders: [], realm_emoji: [] })).toEqual([
      "channel_folders is not documented",
      "realm_emoji: data must be object",
    ]);
  });

  it("fetch_event_types [] → only the version keys", async () => {
    const state = await register([]);
    expectDocumented(state);
    expect(state).toEqual({
      zulip_version: ZULIP_VERSION,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_merge_base: ZULIP_VERSION,
    });
  });

  it("each event type brings its own keys and no others", async () => {
    const keys = async (types: string[]) =>
      Object.keys(await register(types))
        .filter((k) => !k.startsWith("zulip_"))
        .sort();
    expect(await keys(["custom_profile_fields"])).toEqual(["custom_profile_field_types", "custom_profile_fields"]);
    expect(await keys(["realm_emoji", "realm_playgrounds"])).toEqual(["realm_emoji", "realm_playgrounds"]);
    expect(await keys(["realm_linkifiers", "realm_filters", "realm_domains"])).toEqual([
      "realm_domains",
      "realm_filters",
      "realm_linkifiers",
    ]);
    expect(await keys(["channel_folders"])).toEqual(["channel_folders"]);
    expect(await keys(["message", "subscription"])).toEqual([]);
    const realmKeys = await keys(["realm"]);
    expect(realmKeys).toEqual(expect.arrayContaining(["realm_name", "max_topic_length", "server_generation"]));
    expect(realmKeys).not.toContain("custom_profile_fields");
    expect(realmKeys).not.toContain("realm_emoji");
  });

  it("GET /server_settings reports the same version, for the organization of the Host", async () => {
    const body = await org.call(realmConfig.getServerSettings, {}, null);
    expect(body.zulip_feature_level).toBe(ZULIP_FEATURE_LEVEL);
    expect(body.zulip_version).toBe(ZULIP_VERSION);
    expect(body.realm_uri).toBe(org.realm.uri);
    expect(new URL(body.realm_uri).hostname).toBe(`${org.subdomain}.localhost`);
  });
});
