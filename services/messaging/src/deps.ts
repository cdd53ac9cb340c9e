import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  type EventKeyedCache,
  type messaging,
  type messagingEvents,
  realmConfig,
  realmConfigEvents,
  requireRealm,
  subscribeEvent,
  type BusClient,
  type CallContext,
  type Connection,
  type EventPublisher,
  type FileStore,
  type RealmEmojiSource,
  type UserGroupMemberships,
  type EventSubscription,
} from "@teamchat/shared";
import type { AlertWordIndex } from "./alert-words/alert-word-index";
import type { AttachmentRepository } from "./attachments/attachment.repository";
import type { ChannelDirectory } from "./channels/channel-directory";
import type { ConversationRepository } from "./conversations/conversation.repository";
import type { MessageHistory } from "./messages/message-history";
import type { MessageRepository } from "./messages/message.repository";
import type { DraftRepository } from "./drafts/draft.repository";
import type { MutedUserIndex } from "./muted-users/muted-user-index";
import type { SendReceiptRepository } from "./send-receipts/send-receipt.repository";
import type { SavedSnippetRepository } from "./saved-snippets/saved-snippet.repository";
import type { ScheduledMessageRepository } from "./scheduled-messages/scheduled-message.repository";
import type { SubscriptionDirectory } from "./subscriptions/subscription-directory";
import type { TopicRepository } from "./topics/topic.repository";
import type { LinkifierSource } from "./render/linkifier-source";
import type { PersonalIndex } from "./user-messages/personal-index";
import type { UserMessageRepository } from "./user-messages/user-message.repository";
import type { UserTopicIndex } from "./user-topics/user-topic-index";
import type { UserDirectory } from "./users/user-directory";

/** Organizations whose settings an instance keeps. */
const MAX_CACHED_REALMS = 10_000;

/**
 * What messaging asks realm-config: the organization's settings and channel
 * folders. Settings are read by nearly every request and kept per
 * organization; every instance drops them on the realm event PATCH /realm
 * publishes before its reply (see EventCache), so a change applies to the
 * next request.
 */
export class RealmSettingsSource {
  private readonly settings: EventCache<realmConfig.RealmSettings>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly bus: BusClient,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.settings = new EventCache(nc, { name: "realm-settings", maxWeight: MAX_CACHED_REALMS, weigh: () => 1 });
    this.sub = subscribeEvent(nc, realmConfigEvents.realmUpdated, ({ realmId }) => this.settings.drop(`${realmId}`), {
      log,
    });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  get(ctx: CallContext): Promise<realmConfig.RealmSettings> {
    return this.settings.get(`${requireRealm(ctx).id}`, () => this.bus.request(realmConfig.getRealmSettings, {}, ctx));
  }

  async folderExists(ctx: CallContext, folderId: number): Promise<boolean> {
    const { channel_folders } = await this.bus.request(realmConfig.listChannelFolders, { include_archived: true }, ctx);
    return channel_folders.some((f) => f.id === folderId);
  }
}

/** Everything messaging's handlers may use; each takes only its own `Deps<...>` of it. */
export interface MessagingDeps {
  /** the service's database: multi-document changes run in its transactions (withTransaction) */
  db: Connection;
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
  sendReceipts: SendReceiptRepository;
  drafts: DraftRepository;
  scheduledMessages: ScheduledMessageRepository;
  /** register's scheduled_messages per user, dropped on the scheduled_messages events of every change */
  scheduledLists: EventKeyedCache<
    messaging.ScheduledMessage[],
    typeof messagingEvents.scheduledMessagesChanged.payload
  >;
  savedSnippets: SavedSnippetRepository;
  /** register's saved_snippets per user, dropped on the saved_snippets events of every change */
  snippetLists: EventKeyedCache<messaging.SavedSnippet[], typeof messagingEvents.savedSnippetsChanged.payload>;
  events: EventPublisher<"messaging">;
  settings: RealmSettingsSource;
  /** each organization's linkifiers, applied when messages are rendered */
  linkifiers: LinkifierSource;
  /** the organization's user groups, to evaluate group-setting values with */
  userGroups: UserGroupMemberships;
  /** uploads and the messages that link them */
  attachments: AttachmentRepository;
  /** the uploads' bytes */
  files: FileStore;
  /** the organization's custom emoji, for reactions (dropped on realm_emoji events) */
  realmEmoji: RealmEmojiSource;
}

export type Deps<K extends keyof MessagingDeps> = Pick<MessagingDeps, K>;
