/**
 * register's can_create_streams, can_create_{public,private,web_public}_streams,
 * can_subscribe_other_users and can_invite_others_to_realm (Zulip's
 * fetch_initial_state_data, realm_user group): the caller's membership of the
 * organization's group settings, for every role, as the settings, the groups
 * and the caller's role change; and stop_words.
 */
import { identity, messaging, notifications, realmConfig, Role, SYSTEM_GROUPS } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, other: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("PermAdmin", Role.ADMINISTRATOR);
  moderator = await org.makeUser("PermModerator", Role.MODERATOR);
  member = await org.makeUser("PermMember", Role.MEMBER);
  other = await org.makeUser("PermOther", Role.MEMBER);
  guest = await org.makeUser("PermGuest", Role.GUEST);
});
afterAll(() => org?.stop());

const KEYS = [
  "can_create_streams",
  "can_create_public_streams",
  "can_create_private_streams",
  "can_create_web_public_streams",
  "can_subscribe_other_users",
  "can_invite_others_to_realm",
] as const;
type Permissions = Record<(typeof KEYS)[number], boolean>;

const permissions = async (user: TestUser): Promise<Permissions> => {
  const state = (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["realm_user"] },
    user,
  )) as unknown as Permissions;
  return Object.fromEntries(KEYS.map((k) => [k, state[k]])) as Permissions;
};
const allowed = (
  publicStreams: boolean,
  privateStreams: boolean,
  subscribeOthers: boolean,
  invite: boolean,
): Permissions => ({
  can_create_streams: publicStreams || privateStreams,
  can_create_public_streams: publicStreams,
  can_create_private_streams: privateStreams,
  // this server does not enable web-public channels (Zulip's WEB_PUBLIC_STREAMS_ENABLED)
  can_create_web_public_streams: false,
  can_subscribe_other_users: subscribeOthers,
  can_invite_others_to_realm: invite,
});
const setRealm = (params: Record<string, unknown>) => org.call(realmConfig.updateRealm, params, org.owner);
const group = (id: number) => ({ new: id });

describe("register's channel and invitation permissions", () => {
  it("with Zulip's default settings: every member may, guests may not", async () => {
    for (const user of [org.owner, admin, moderator, member]) {
      expect(await permissions(user)).toEqual(allowed(true, true, true, true));
    }
    expect(await permissions(guest)).toEqual(allowed(false, false, false, false));
  });

  it("follow the organization's group settings: system groups, anonymous groups, and user groups as they change", async () => {
    await setRealm({
      can_create_public_channel_group: group(SYSTEM_GROUPS["role:administrators"]),
      can_create_private_channel_group: { new: { direct_members: [member.userId], direct_subgroups: [] } },
      can_add_subscribers_group: group(SYSTEM_GROUPS["role:moderators"]),
      can_invite_users_group: group(SYSTEM_GROUPS["role:owners"]),
    });
    expect(await permissions(org.owner)).toEqual(allowed(true, false, true, true));
    expect(await permissions(admin)).toEqual(allowed(true, false, true, false));
    expect(await permissions(moderator)).toEqual(allowed(false, false, true, false));
    expect(await permissions(member)).toEqual(allowed(false, true, false, false));
    expect(await permissions(other)).toEqual(allowed(false, false, false, false));
    expect(await permissions(guest)).toEqual(allowed(false, false, false, false));

    // a user group: its members may, and a member added later too
    const { group_id } = await org.call(
      identity.createUserGroup,
      { name: "Channel makers", description: "", members: [other.userId] },
      org.owner,
    );
    await setRealm({ can_create_public_channel_group: group(group_id) });
    expect((await permissions(other)).can_create_public_streams).toBe(true);
    expect((await permissions(admin)).can_create_public_streams).toBe(false);
    await org.call(identity.updateUserGroupMembers, { user_group_id: group_id, add: [admin.userId] }, org.owner);
    expect((await permissions(admin)).can_create_public_streams).toBe(true);
  });

  it("agree with what the operations allow", async () => {
    // public channels: the group above (other, admin); private: the anonymous group (member)
    expect((await permissions(member)).can_create_public_streams).toBe(false);
    await expectZulipError(
      org.call(messaging.createChannel, { name: "member-public", subscribers: [] }, member),
      badRequestError("Insufficient permission"),
    );
    expect((await permissions(other)).can_create_public_streams).toBe(true);
    await org.call(messaging.createChannel, { name: "other-public", subscribers: [] }, other);
    expect((await permissions(member)).can_create_private_streams).toBe(true);
    await org.call(messaging.createChannel, { name: "member-private", subscribers: [], invite_only: true }, member);
  });

  it("follow the caller's role", async () => {
    expect((await permissions(member)).can_subscribe_other_users).toBe(false);
    await org.call(identity.updateUser, { user_id: member.userId, role: Role.MODERATOR }, org.owner);
    expect((await permissions(member)).can_subscribe_other_users).toBe(true);
    await org.call(identity.updateUser, { user_id: member.userId, role: Role.GUEST }, org.owner);
    // a guest creates nothing, even when a setting names them
    expect(await permissions(member)).toEqual(allowed(false, false, false, false));
  });

  it("come only with realm_user, beside stop_words with its own type", async () => {
    const state = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["stop_words"] },
      admin,
    )) as unknown as Record<string, unknown>;
    // the search engine's (services/messaging/test/search.test.ts)
    expect(state.stop_words).toEqual(expect.any(Array));
    for (const key of KEYS) expect(state).not.toHaveProperty(key);
    expect(
      await org.call(notifications.registerQueue, { fetch_event_types: ["realm_user"] }, admin),
    ).not.toHaveProperty("stop_words");
  });
});
