import { messaging, type BusServer, type EventPublisher } from "@teamchat/shared";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import type { MessageRepository } from "../messages/message.repository";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserDirectory } from "../users/user-directory";
import { muteUserHandler } from "../handlers/mute-user";
import { unmuteUserHandler } from "../handlers/unmute-user";

/** A user's muted users. */
export function registerMutedUserOperations(
  server: BusServer,
  {
    messages,
    userMessages,
    readStates,
    channelMessages,
    personal,
    users,
    mutedUsers,
    events,
  }: {
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    personal: PersonalIndex;
    users: UserDirectory;
    mutedUsers: MutedUserIndex;
    events: EventPublisher<"messaging">;
  },
): void {
  server
    .handle(
      messaging.muteUser,
      muteUserHandler({
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        users,
        mutedUsers,
        events,
      }),
    )
    .handle(messaging.unmuteUser, unmuteUserHandler({ users, mutedUsers, events }));
}
