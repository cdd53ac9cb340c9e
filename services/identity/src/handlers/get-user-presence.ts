import { badRequest, requireUser, type Handler, type identity } from "@teamchat/shared";
import { isOffline, legacyClientPresence } from "../presence/presence";
import { accessUserByEmail } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { Presences } from "../presence/presences";

/**
 * GET /users/{user_id_or_email}/presence (Zulip's get_presence_backend): an
 * active human user's presence; in the legacy format `aggregated` says
 * "offline" once the report is older than the offline threshold.
 */
export const getUserPresenceHandler =
  ({ users, presence }: { users: UserDirectory; presence: Presences }): Handler<typeof identity.getUserPresence> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const key = p.user_id_or_email;
    const target = /^\d+$/.test(key)
      ? await users.byId(realm.id, Number(key))
      : await accessUserByEmail(users, realm, actor, key).catch(() => null);
    if (!target?.isActive) throw badRequest("No such user");
    if (target.isBot) throw badRequest("Presence is not supported for bot users.");
    const record = presence.of(realm, target);
    if (!record) throw badRequest(`No presence data for ${key}`);
    const { status, timestamp } = legacyClientPresence(record, target.dateJoined);
    return {
      presence: {
        website: { status, timestamp },
        aggregated: { status: isOffline(timestamp, Date.now()) ? "offline" : status, timestamp },
      },
    };
  };
