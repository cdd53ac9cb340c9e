import { identity, requireRealm, type Handler } from "@teamchat/shared";
import { dummyEmailUserId } from "../users/access";
import type { UserDoc } from "../users/user.schema";
import { toUserSummary } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";

/** Internal: users by ids, by real or dummy addresses (both lists together), or all of the organization. */
export const getUserSummariesHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.getUserSummaries> =>
  async ({ user_ids, emails }, ctx) => {
    const realm = requireRealm(ctx);
    let found: UserDoc[];
    if (user_ids === undefined && emails === undefined) {
      found = await users.all(realm.id);
    } else {
      const dummyIds = (emails ?? []).map((e) => dummyEmailUserId(e, realm)).filter((id) => id !== null);
      const realEmails = (emails ?? []).filter((e) => dummyEmailUserId(e, realm) === null);
      const [byId, byEmail] = await Promise.all([
        users.byIds(realm.id, [...(user_ids ?? []), ...dummyIds]),
        realEmails.length ? users.byEmails(realm.id, realEmails) : [],
      ]);
      found = [...new Map([...byId, ...byEmail].map((u) => [u.userId, u])).values()];
    }
    return { users: found.map((u) => toUserSummary(u, realm)) };
  };
