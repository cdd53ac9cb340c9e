import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import { OFFLINE_THRESHOLD_SECS, PRESENCE_PING_INTERVAL_SECS } from "./presence";
import type { Presences } from "./presences";

/**
 * register's presences, as a first POST /users/me/presence would give them
 * (Zulip passes last_update_id -1), and the presence timings clients follow.
 */
export const presenceState = ({ presence }: { presence: Presences }): StateProvider[] => [
  provideState(identity.presenceState, async (params, ctx) => {
    const { realm } = requireUser(ctx);
    const { presences, lastUpdateId } = await presence.ofRealm(realm, { slim: params.slim_presence, lastUpdateId: -1 });
    return { presences, presence_last_update_id: lastUpdateId, server_timestamp: Date.now() / 1000 };
  }),
  provideState(identity.presenceTimingsState, async () => ({
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECS,
    server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
  })),
];
