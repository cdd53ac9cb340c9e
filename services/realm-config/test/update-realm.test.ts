/**
 * PATCH /realm (Zulip's update_realm): who may change what, Zulip's checks
 * (each refusal changes nothing), the realm events, and register after it.
 */
import { messaging, notifications, realmConfig } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { usersOfEveryRole, type RoleUser } from "./helpers";

let org: TestOrganization;
let users: RoleUser[];
const as = (label: string) => users.find((u) => u.label === label)!.user;

beforeAll(async () => {
  org = await testOrganization();
  users = await usersOfEveryRole(org);
});
afterAll(() => org?.stop());

const GROUPS = { owners: 1, administrators: 2, moderators: 3, members: 5, everyone: 6, internet: 7, nobody: 8 };
const update = (
  params: Parameters<typeof org.call<typeof realmConfig.updateRealm>>[1],
  user: Credentials = org.owner,
) => org.call(realmConfig.updateRealm, params, user);
const registerRealm = async (user: Credentials = org.owner) =>
  (await org.call(notifications.registerQueue, { fetch_event_types: ["realm"] }, user)) as unknown as Record<
    string,
    unknown
  >;

describe("PATCH /realm", () => {
  it("changes the settings sent, answers those that changed, skips unchanged ones, and register shows them", async () => {
    const reader = await EventReader.register(org.api(as("member")), { event_types: ["realm"] });
    const reply = await update({
      name: "Renamed",
      allow_message_editing: true, // unchanged
      message_content_edit_limit_seconds: 120,
      message_content_delete_limit_seconds: "unlimited",
      message_edit_history_visibility_policy: "moves",
      enable_read_receipts: false,
      topics_policy: "disable_empty_topic",
      message_retention_days: 30,
      can_create_bots_group: { new: GROUPS.administrators, old: GROUPS.members },
      can_delete_own_message_group: { new: GROUPS.everyone }, // unchanged
    });
    expect(reply).toEqual({
      result: "success",
      msg: "",
      name: "updated",
      message_content_edit_limit_seconds: 120,
      message_content_delete_limit_seconds: null,
      message_edit_history_visibility_policy: "moves",
      enable_read_receipts: false,
      topics_policy: "disable_empty_topic",
      message_retention_days: 30,
      can_create_bots_group: GROUPS.administrators,
    });
    const events = await reader.until((e) => e.length >= 8);
    expect(events.map(({ id: _, ...e }) => e)).toEqual([
      { type: "realm", op: "update", property: "name", value: "Renamed" },
      { type: "realm", op: "update_dict", property: "default", data: { message_content_edit_limit_seconds: 120 } },
      { type: "realm", op: "update", property: "message_content_delete_limit_seconds", value: null },
      { type: "realm", op: "update", property: "message_edit_history_visibility_policy", value: "moves" },
      { type: "realm", op: "update", property: "enable_read_receipts", value: false },
      {
        type: "realm",
        op: "update_dict",
        property: "default",
        data: { topics_policy: "disable_empty_topic", mandatory_topics: true },
      },
      { type: "realm", op: "update", property: "message_retention_days", value: 30 },
      {
        type: "realm",
        op: "update_dict",
        property: "default",
        data: { can_create_bots_group: GROUPS.administrators },
      },
    ]);
    expect(await registerRealm(as("guest"))).toMatchObject({
      realm_name: "Renamed",
      realm_message_content_edit_limit_seconds: 120,
      realm_message_content_delete_limit_seconds: null,
      realm_message_edit_history_visibility_policy: "moves",
      realm_allow_edit_history: true,
      realm_enable_read_receipts: false,
      realm_topics_policy: "disable_empty_topic",
      realm_message_retention_days: 30,
      realm_can_create_bots_group: GROUPS.administrators,
    });
    // the same values again change nothing and announce nothing
    expect(
      await update({ name: "Renamed", message_content_edit_limit_seconds: 120, enable_read_receipts: false }),
    ).toEqual({ result: "success", msg: "" });
    expect(await reader.drain()).toHaveLength(8);
  });

  it("permission matrix: administrators change settings; owners alone the owner-only ones", async () => {
    const adminSetting = { enable_spectator_access: false };
    for (const { label, user } of users) {
      const refused = label === "moderator" || label === "member" || label === "guest";
      if (refused) {
        await expectZulipError(
          update(adminSetting, user),
          badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL"),
        );
      } else {
        expect(await update(adminSetting, user)).toEqual({ result: "success", msg: "" });
      }
    }
    const ownerOnly = [
      { message_retention_days: "unlimited" },
      { can_invite_users_group: { new: GROUPS.administrators } },
      { can_manage_all_groups: { new: GROUPS.administrators } },
      { create_multiuse_invite_group: { new: GROUPS.owners } },
      { can_create_groups: { new: GROUPS.administrators } },
    ];
    for (const params of ownerOnly) {
      await expectZulipError(
        update(params, as("administrator")),
        badRequestError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL"),
      );
    }
    expect(await update({ message_retention_days: "unlimited" })).toEqual({
      result: "success",
      msg: "",
      message_retention_days: -1,
    });
    expect(
      await update({ can_move_messages_between_topics_group: { new: GROUPS.members } }, as("administrator")),
    ).toEqual({ result: "success", msg: "", can_move_messages_between_topics_group: GROUPS.members });
  });

  it("each bad value is refused with Zulip's error and changes nothing", async () => {
    const before = await registerRealm();
    const badValue = (name: string, value: unknown) => ({
      status: 400,
      code: "REQUEST_VARIABLE_INVALID" as const,
      msg: `Bad value for '${name}': ${value}`,
      var_name: name,
      bad_value: value,
    });
    const cases: Array<[Record<string, unknown>, Parameters<typeof expectZulipError>[1]]> = [
      [{ message_content_edit_limit_seconds: 0 }, badValue("message_content_edit_limit_seconds", 0)],
      [{ move_messages_within_stream_limit_seconds: -5 }, badValue("move_messages_within_stream_limit_seconds", -5)],
      [
        { message_content_delete_limit_seconds: "forever" },
        badValue("message_content_delete_limit_seconds", "forever"),
      ],
      [{ message_retention_days: 0 }, badValue("message_retention_days", 0)],
      [{ name: "x".repeat(41) }, badRequestError("name is too long (limit: 40 characters)")],
      [
        { message_edit_history_visibility_policy: "some" },
        badRequestError("Invalid message_edit_history_visibility_policy"),
      ],
      [{ new_stream_announcements_stream_id: 999999 }, badRequestError("Invalid channel ID")],
      [{ can_create_bots_group: { new: 999 } }, badRequestError("Invalid user group")],
      [
        { can_create_bots_group: { new: GROUPS.owners, old: GROUPS.everyone } },
        badRequestError("'old' value does not match the expected value."),
      ],
      [
        { can_create_bots_group: { new: GROUPS.internet } },
        badRequestError("'can_create_bots_group' setting cannot be set to 'role:internet' group."),
      ],
      [
        { can_create_public_channel_group: { new: GROUPS.everyone } },
        badRequestError("'can_create_public_channel_group' setting cannot be set to 'role:everyone' group."),
      ],
      [
        { can_access_all_users_group: { new: GROUPS.nobody } },
        badRequestError("'can_access_all_users_group' setting cannot be set to 'role:nobody' group."),
      ],
      [
        { can_create_web_public_channel_group: { new: GROUPS.members } },
        badRequestError("'can_create_web_public_channel_group' setting cannot be set to 'role:members' group."),
      ],
      [
        { can_create_web_public_channel_group: { new: { direct_members: [org.owner.userId], direct_subgroups: [] } } },
        badRequestError("'can_create_web_public_channel_group' must be a system user group."),
      ],
    ];
    for (const [params, error] of cases) {
      // a valid change beside the bad one is not made either
      await expectZulipError(update({ enable_read_receipts: true, ...params } as never), error);
    }
    expect(await registerRealm()).toEqual({ ...before, queue_id: expect.any(String) });
  });

  it("the new-channel announcement channel: a channel the administrator can see, or -1 for none", async () => {
    const { id: stream_id } = await org.call(
      messaging.createChannel,
      { name: "announcements", subscribers: [org.owner.userId] },
      org.owner,
    );
    const reader = await EventReader.register(org.api(org.owner), { event_types: ["realm"] });
    expect(await update({ new_stream_announcements_stream_id: stream_id })).toEqual({
      result: "success",
      msg: "",
      new_stream_announcements_stream_id: stream_id,
    });
    expect((await registerRealm()).realm_new_stream_announcements_stream_id).toBe(stream_id);
    expect(await update({ new_stream_announcements_stream_id: -1 })).toEqual({
      result: "success",
      msg: "",
      new_stream_announcements_stream_id: -1,
    });
    const events = await reader.until((e) => e.length >= 2);
    expect(events.map((e) => e.value)).toEqual([stream_id, -1]);
    expect((await registerRealm()).realm_new_stream_announcements_stream_id).toBe(-1);
  });

  it("anonymous groups of system groups are kept as the group they name", async () => {
    expect(
      await update({
        can_mention_many_users_group: { new: { direct_members: [], direct_subgroups: [GROUPS.moderators] } },
      }),
    ).toEqual({ result: "success", msg: "", can_mention_many_users_group: GROUPS.moderators });
  });
});
