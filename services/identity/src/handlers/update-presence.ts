import { badRequest, requireUser, type Handler, type identity } from "@teamchat/shared";
import { caller, humanUsersOnly } from "../users/access";
import type { UserDirectory } from "../users/user-directory";
import type { Presences } from "../presence/presences";

/**
 * POST /users/me/presence (Zulip's update_active_status_backend): the
 * caller's report, then, unless ping_only, the organization's presences:
 * with last_update_id only what changed since, in the modern format.
 */
export const updatePresenceHandler =
  ({ users, presence }: { users: UserDirectory; presence: Presences }): Handler<typeof identity.updatePresence> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    humanUsersOnly(actor);
    if (p.status !== "active" && p.status !== "idle") throw badRequest(`Invalid status: ${p.status}`);
    await presence.report(realm, await caller(users, ctx), p.status === "active", ctx);
    if (p.ping_only) return {};
    const { presences, lastUpdateId } = await presence.ofRealm(realm, {
      slim: p.slim_presence || p.last_update_id !== undefined,
      lastUpdateId: p.last_update_id,
      historyLimitDays: p.history_limit_days,
    });
    return { presences, server_timestamp: Date.now() / 1000, presence_last_update_id: lastUpdateId };
  };
