import { realmConfig, type BusClient, type CallContext, type EventPublisher } from "@teamchat/shared";
import type { ChannelRepository } from "./channels/channel.repository";
import type { ConversationRepository } from "./conversations/conversation.repository";
import type { MessageHistory } from "./messages/message-history";
import type { MessageRepository } from "./messages/message.repository";
import type { SubscriptionRepository } from "./subscriptions/subscription.repository";
import type { TopicRepository } from "./topics/topic.repository";
import type { UnreadIndex } from "./user-messages/unread-index";
import type { UserMessageRepository } from "./user-messages/user-message.repository";
import type { UserDirectory } from "./users/user-directory";

/** What messaging asks realm-config: the organization's settings and channel folders. */
export class RealmSettingsSource {
  constructor(private readonly bus: BusClient) {}

  get(ctx: CallContext): Promise<realmConfig.RealmSettings> {
    return this.bus.request(realmConfig.getRealmSettings, {}, ctx);
  }

  async folderExists(ctx: CallContext, folderId: number): Promise<boolean> {
    const { channel_folders } = await this.bus.request(realmConfig.listChannelFolders, { include_archived: true }, ctx);
    return channel_folders.some((f) => f.id === folderId);
  }
}

/** Everything messaging's handlers may use; each takes only its own `Deps<...>` of it. */
export interface MessagingDeps {
  channels: ChannelRepository;
  subscriptions: SubscriptionRepository;
  messages: MessageRepository;
  history: MessageHistory;
  userMessages: UserMessageRepository;
  unread: UnreadIndex;
  conversations: ConversationRepository;
  topics: TopicRepository;
  users: UserDirectory;
  events: EventPublisher<"messaging">;
  settings: RealmSettingsSource;
}

export type Deps<K extends keyof MessagingDeps> = Pick<MessagingDeps, K>;
