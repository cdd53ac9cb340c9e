import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  identityEvents,
  messaging,
  provideState,
  requireUser,
  subscribeEvent,
  type StateProvider,
} from "@teamchat/shared";
import type { Deps } from "../deps";
import { toDraft } from "./draft.repository";

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE: more are fetched with GET /drafts. */
const MAX_DRAFTS_IN_REGISTER = 1000;

/**
 * register's drafts: the most recently edited first (Zulip's fetch_initial_state_data);
 * none while synchronization is off, whose drafts are being deleted.
 */
export const draftsState = (deps: Deps<"drafts" | "users">): StateProvider[] => [
  provideState(messaging.draftsState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const me = (await deps.users.byIds(ctx, realm.id, [actor.userId])).get(actor.userId);
    if (!me?.enable_drafts_synchronization) return { drafts: [] };
    const drafts = await deps.drafts.ofUser(realm.id, actor.userId);
    return { drafts: drafts.reverse().slice(0, MAX_DRAFTS_IN_REGISTER).map(toDraft) };
  }),
];

/**
 * Zulip's do_change_user_setting: turning enable_drafts_synchronization off
 * deletes the user's drafts on the server, without drafts events (the clients
 * keep theirs locally). One instance of the queue group does it.
 */
export function deleteDraftsWhenSynchronizationStops(
  deps: Deps<"drafts">,
  nc: NatsConnection,
  log: Logger,
): Subscription {
  return subscribeEvent(
    nc,
    identityEvents.userSettings,
    ({ realmId, userIds, event }) => {
      if (event.property !== "enable_drafts_synchronization" || event.value !== false || userIds === "all") return;
      for (const userId of userIds) {
        deps.drafts
          .removeAllOf(realmId, userId)
          .then((deleted) => log.info({ realmId, userId, deleted }, "drafts deleted: synchronization turned off"))
          .catch((err: unknown) => log.error({ err, realmId, userId }, "drafts not deleted"));
      }
    },
    { queue: "messaging.drafts", log },
  );
}
