import { realmConfig, type BusClient, type CallContext, type EventPublisher } from "@teamchat/shared";
import type { ChannelRepository } from "./channels/channel.repository";
import type { ConversationRepository } from "./conversations/conversation.repository";
import type { MessageRepository } from "./messages/message.repository";
import type { SubscriptionRepository } from "./subscriptions/subscription.repository";
import type { UserMessageRepository } from "./user-messages/user-message.repository";
import type { UserDirectory } from "./users/user-directory";

/** What messaging's handlers work with: its repositories, the user directory and the bus. */
export interface Messaging {
  channels: ChannelRepository;
  subscriptions: SubscriptionRepository;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  conversations: ConversationRepository;
  users: UserDirectory;
  bus: BusClient;
  events: EventPublisher<"messaging">;
}

export const realmSettings = (m: Messaging, ctx: CallContext): Promise<realmConfig.RealmSettings> =>
  m.bus.request(realmConfig.getRealmSettings, {}, ctx);
