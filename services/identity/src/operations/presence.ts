import { identity, type BusServer, type EventPublisher, type RealmEmojiSource } from "@teamchat/shared";
import { getRealmPresenceHandler } from "../handlers/get-realm-presence";
import { getUserPresenceHandler } from "../handlers/get-user-presence";
import { getUserStatusHandler } from "../handlers/get-user-status";
import { updatePresenceHandler } from "../handlers/update-presence";
import { updateStatusHandler } from "../handlers/update-status";
import type { Presences } from "../presence/presences";
import type { UserDirectory } from "../users/user-directory";

/** Statuses and presence. */
export function registerPresenceOperations(
  server: BusServer,
  {
    users,
    presence,
    realmEmoji,
    events,
  }: {
    users: UserDirectory;
    presence: Presences;
    realmEmoji: RealmEmojiSource;
    events: EventPublisher<"identity">;
  },
): void {
  server
    .handle(identity.updateStatus, updateStatusHandler({ users, events, presence, realmEmoji }))
    .handle(identity.getUserStatus, getUserStatusHandler({ users }))
    .handle(identity.updatePresence, updatePresenceHandler({ users, presence }))
    .handle(identity.getRealmPresence, getRealmPresenceHandler({ presence }))
    .handle(identity.getUserPresence, getUserPresenceHandler({ users, presence }));
}
