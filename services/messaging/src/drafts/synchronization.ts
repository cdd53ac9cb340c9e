import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { identityEvents, subscribeEvent } from "@teamchat/shared";
import type { Deps } from "../deps";

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
