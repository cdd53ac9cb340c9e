/**
 * register's realm_users and realm_non_active_users, which identity builds once
 * per organization and class of viewer and shares: each viewer still gets the
 * lists GET /users gives them (both are Zulip's format_user_row as that viewer
 * sees it), their own entry whole, and every change at once.
 */
import { identity, notifications, type RoleValue } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

type UserResource = Record<string, unknown> & { user_id: number };
interface UserLists {
  realm_users: UserResource[];
  realm_non_active_users: UserResource[];
}

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
/** a user per email_address_visibility: 1 everyone, 2 members, 3 admins, 4 nobody, 5 moderators */
const byVisibility = new Map<number, TestUser>();
let gone: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", 200);
  moderator = await org.makeUser("moderator", 300);
  member = await org.makeUser("member");
  guest = await org.makeUser("guest", 600);
  for (const visibility of [1, 2, 3, 4, 5] as const) {
    const user = await org.makeUser(`vis${visibility}`);
    await org.call(identity.updateSettings, { email_address_visibility: visibility }, user);
    byVisibility.set(visibility, user);
  }
  gone = await org.makeUser("gone");
  await org.call(identity.deactivateUser, { user_id: gone.userId }, org.owner);
});
afterAll(() => org?.stop());

const register = async (viewer: Credentials, client_gravatar: boolean) =>
  (await org.call(
    notifications.registerQueue,
    { fetch_event_types: ["realm_user"], client_gravatar },
    viewer,
  )) as unknown as UserLists;

/** GET /users, built for each request as the viewer sees it: what register answered before it shared its lists. */
async function listsOfGetUsers(viewer: Credentials, client_gravatar: boolean): Promise<UserLists> {
  const { members } = await org.call(
    identity.getUsers,
    { client_gravatar, include_custom_profile_fields: true },
    viewer,
  );
  return {
    realm_users: members.filter((u) => u.is_active),
    realm_non_active_users: members.filter((u) => !u.is_active),
  };
}

const entryOf = (lists: UserLists, userId: number) =>
  [...lists.realm_users, ...lists.realm_non_active_users].find((u) => u.user_id === userId);
const dummy = (user: TestUser) => `user${user.userId}@${org.realm.host.split(":")[0]}`;

describe("register's user lists", () => {
  it("are GET /users' lists as each viewer sees them, byte for byte, under every visibility and client_gravatar", async () => {
    const viewers = [org.owner, admin, moderator, member, guest, ...byVisibility.values()];
    // twice over: the first round builds the shared lists, the second reads them
    for (let round = 0; round < 2; round++) {
      for (const viewer of viewers) {
        for (const clientGravatar of [false, true]) {
          const state = await register(viewer, clientGravatar);
          const expected = await listsOfGetUsers(viewer, clientGravatar);
          expect(state.realm_users).toEqual(expected.realm_users);
          expect(state.realm_non_active_users).toEqual(expected.realm_non_active_users);
          // the same keys in the same order, as the client parses them
          expect(JSON.stringify([state.realm_users, state.realm_non_active_users])).toBe(
            JSON.stringify([expected.realm_users, expected.realm_non_active_users]),
          );
        }
      }
    }
  });

  it("show real addresses per Zulip's visibility rules, and each viewer their own", async () => {
    const roles: Array<[TestUser, RoleValue]> = [
      [admin, 200],
      [moderator, 300],
      [member, 400],
      [guest, 600],
    ];
    const visibleTo: Record<number, RoleValue[]> = {
      1: [200, 300, 400, 600],
      2: [200, 300, 400],
      3: [200],
      4: [],
      5: [200, 300],
    };
    for (const [viewer, role] of roles) {
      const state = await register(viewer, true);
      for (const [visibility, target] of byVisibility) {
        const visible = visibleTo[visibility]!.includes(role);
        expect(entryOf(state, target.userId)).toMatchObject({
          email: visibility === 1 ? target.email : dummy(target),
          delivery_email: visible ? target.email : null,
          // clients compute the Gravatar of an address they know (client_gravatar)
          avatar_url: visible ? null : expect.stringContaining("gravatar.com"),
        });
      }
      expect(state.realm_non_active_users.map((u) => u.user_id)).toEqual([gone.userId]);
    }
    // one's own entry whole, though nobody else of one's role sees it, and not shown to the next of that role
    const hidden = byVisibility.get(4)!;
    const own = entryOf(await register(hidden, true), hidden.userId);
    expect(own).toMatchObject({ email: dummy(hidden), delivery_email: hidden.email, avatar_url: null });
    const others = entryOf(await register(member, true), hidden.userId);
    expect(others).toMatchObject({ email: dummy(hidden), delivery_email: null });
    expect(others!.avatar_url).toEqual(expect.stringContaining("gravatar.com"));
  });

  it("show each change at the next register: a name, a deactivation, a role, an email visibility", async () => {
    const subject = await org.makeUser("subject");
    // every check reads the lists once before the change, so that they are held when it happens
    const seenBy = async (viewer: TestUser) => entryOf(await register(viewer, false), subject.userId);
    const activeIds = async (viewer: TestUser) => (await register(viewer, false)).realm_users.map((u) => u.user_id);

    expect(await seenBy(member)).toMatchObject({ full_name: "User subject" });
    await org.call(identity.updateSettings, { full_name: "Renamed Subject" }, subject);
    expect(await seenBy(member)).toMatchObject({ full_name: "Renamed Subject" });

    expect(await seenBy(member)).toMatchObject({ is_admin: false, role: 400 });
    await org.call(identity.updateUser, { user_id: subject.userId, role: 200 }, org.owner);
    expect(await seenBy(member)).toMatchObject({ is_admin: true, role: 200 });

    expect(await seenBy(member)).toMatchObject({ email: subject.email, delivery_email: subject.email });
    await org.call(identity.updateSettings, { email_address_visibility: 3 }, subject);
    expect(await seenBy(member)).toMatchObject({ email: dummy(subject), delivery_email: null });
    expect(await seenBy(admin)).toMatchObject({ email: dummy(subject), delivery_email: subject.email });

    expect(await activeIds(member)).toContain(subject.userId);
    await org.call(identity.deactivateUser, { user_id: subject.userId }, org.owner);
    const after = await register(member, false);
    expect(after.realm_users.map((u) => u.user_id)).not.toContain(subject.userId);
    expect(after.realm_non_active_users.find((u) => u.user_id === subject.userId)).toMatchObject({
      is_active: false,
      full_name: "Renamed Subject",
    });
  });
});
