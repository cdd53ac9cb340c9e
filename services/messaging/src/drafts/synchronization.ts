import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  DURABLE_CONSUMERS,
  consumeDurably,
  identityEvents,
  messagingEvents,
  type EventPublisher,
  type PayloadOf,
} from "@teamchat/shared";
import type { DraftRepository } from "./draft.repository";

type SettingChanged = PayloadOf<typeof identityEvents.userSettings>;

/**
 * Zulip's do_change_user_setting: turning enable_drafts_synchronization off
 * deletes the user's drafts on the server, without drafts events (the clients
 * keep theirs locally). From messaging's durable consumer: one instance does
 * it, and a change made while messaging was down is applied when it starts;
 * it then publishes user_lists_changed, no client event, so that every
 * instance drops its copy of the user's drafts for register.
 */
export function deleteDraftsWhenSynchronizationStops(
  deps: { drafts: DraftRepository; events: EventPublisher<"messaging"> },
  nc: NatsConnection,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const apply = async ({ realmId, userIds, event }: SettingChanged, requestId?: string) => {
    if (event.property !== "enable_drafts_synchronization" || event.value !== false || userIds === "all") return;
    for (const userId of userIds) {
      const deleted = await deps.drafts.removeAllOf(realmId, userId);
      log.info({ realmId, userId, deleted, requestId }, "drafts deleted: synchronization turned off");
      // waited for: if it is not stored, the setting's event is handled again, and this published again
      await deps.events.publishAndWait(messagingEvents.userListsChanged, { realmId, userIds: [userId] }, requestId);
    }
  };
  const def = identityEvents.userSettings;
  return consumeDurably(
    nc,
    DURABLE_CONSUMERS.draftsSynchronization,
    new Map([[def.subject, { def, handle: (payload, { requestId }) => apply(payload as SettingChanged, requestId) }]]),
    log,
  );
}
