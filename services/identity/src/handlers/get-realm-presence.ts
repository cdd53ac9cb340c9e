import { requireUser, type Handler, type identity } from "@teamchat/shared";
import type { Presences } from "../presence/presences";

/** GET /realm/presence (Zulip's get_statuses_for_realm): the last 14 days' presences, in the legacy format. */
export const getRealmPresenceHandler =
  ({ presence }: { presence: Presences }): Handler<typeof identity.getRealmPresence> =>
  async (_p, ctx) => {
    const { realm } = requireUser(ctx);
    const { presences } = await presence.ofRealm(realm, { slim: false });
    return { presences: presences as Record<string, identity.LegacyPresence>, server_timestamp: Date.now() / 1000 };
  };
