import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { toScheduledMessage } from "./scheduled-message.repository";

/** register's scheduled_messages: the caller's undelivered ones, soonest first. */
export const scheduledMessagesState = (deps: Deps<"scheduledMessages">): StateProvider[] => [
  provideState(messaging.scheduledMessagesState, async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const scheduled = await deps.scheduledMessages.undeliveredOf(realm.id, actor.userId);
    return { scheduled_messages: scheduled.map(toScheduledMessage) };
  }),
];
