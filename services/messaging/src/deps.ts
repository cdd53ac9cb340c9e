import {
  realmConfig,
  requireRealm,
  type BusClient,
  type CallContext,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { AlertWordIndex } from "./alert-words/alert-word-index";
import type { ChannelDirectory } from "./channels/channel-directory";
import type { ConversationRepository } from "./conversations/conversation.repository";
import type { MessageHistory } from "./messages/message-history";
import type { MessageRepository } from "./messages/message.repository";
import type { MutedUserIndex } from "./muted-users/muted-user-index";
import type { SubscriptionDirectory } from "./subscriptions/subscription-directory";
import type { TopicRepository } from "./topics/topic.repository";
import type { PersonalIndex } from "./user-messages/personal-index";
import type { UserMessageRepository } from "./user-messages/user-message.repository";
import type { UserTopicIndex } from "./user-topics/user-topic-index";
import type { UserDirectory } from "./users/user-directory";

/**
 * What messaging asks realm-config: the organization's settings and channel
 * folders. Settings are read by nearly every request and kept per
 * organization: no operation changes them yet; the one that does (PATCH
 * /realm) must publish an event that every instance hears and drops them on.
 */
export class RealmSettingsSource {
  private readonly settings = new Map<number, Promise<realmConfig.RealmSettings>>();

  constructor(private readonly bus: BusClient) {}

  get(ctx: CallContext): Promise<realmConfig.RealmSettings> {
    const realmId = requireRealm(ctx).id;
    let settings = this.settings.get(realmId);
    if (!settings) {
      settings = this.bus.request(realmConfig.getRealmSettings, {}, ctx);
      settings.catch(() => this.settings.delete(realmId));
      this.settings.set(realmId, settings);
    }
    return settings;
  }

  async folderExists(ctx: CallContext, folderId: number): Promise<boolean> {
    const { channel_folders } = await this.bus.request(realmConfig.listChannelFolders, { include_archived: true }, ctx);
    return channel_folders.some((f) => f.id === folderId);
  }
}

/** Everything messaging's handlers may use; each takes only its own `Deps<...>` of it. */
export interface MessagingDeps {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  messages: MessageRepository;
  history: MessageHistory;
  userMessages: UserMessageRepository;
  personal: PersonalIndex;
  conversations: ConversationRepository;
  topics: TopicRepository;
  userTopics: UserTopicIndex;
  users: UserDirectory;
  alertWords: AlertWordIndex;
  mutedUsers: MutedUserIndex;
  events: EventPublisher<"messaging">;
  settings: RealmSettingsSource;
  /** the organization's user groups, to evaluate group-setting values with */
  userGroups: UserGroupMemberships;
}

export type Deps<K extends keyof MessagingDeps> = Pick<MessagingDeps, K>;
