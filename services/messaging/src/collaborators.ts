import type { NatsConnection } from "@nats-io/transport-node";
import {
  EventKeyedCache,
  FileStore,
  IdAllocator,
  RealmEmojiSource,
  UserGroupMemberships,
  identityEvents,
  messagingEvents,
  type BusClient,
  type Config,
  type Connection,
  type EventPublisher,
  type Logger,
  type messaging,
} from "@teamchat/shared";
import { AttachmentRepository } from "./attachments/attachment.repository";
import { AlertWordIndex } from "./alert-words/alert-word-index";
import { AlertWordRepository } from "./alert-words/alert-word.repository";
import { ChannelDirectory } from "./channels/channel-directory";
import { ChannelRepository } from "./channels/channel.repository";
import { ConversationRepository } from "./conversations/conversation.repository";
import { RealmSettingsSource } from "./realm-settings/realm-settings-source";
import { DraftRepository } from "./drafts/draft.repository";
import { LinkPreviewRepository } from "./link-previews/link-preview.repository";
import { LinkifierSource } from "./render/linkifier-source";
import { UploadTokenRepository } from "./attachments/upload-token.repository";
import { MessageCache } from "./messages/message-cache";
import { MessageHistory } from "./messages/message-history";
import { MessageRepository } from "./messages/message.repository";
import { RecentMessages } from "./messages/recent-messages";
import { MutedUserIndex } from "./muted-users/muted-user-index";
import { NotificationCandidateCache } from "./messages/notification-candidates";
import { MutedUserRepository } from "./muted-users/muted-user.repository";
import { InstanceLiveness } from "./send-receipts/instance-liveness";
import { SendReceiptRepository } from "./send-receipts/send-receipt.repository";
import { SubscriptionDirectory } from "./subscriptions/subscription-directory";
import { SubscriptionRepository } from "./subscriptions/subscription.repository";
import { TopicRepository } from "./topics/topic.repository";
import { SavedSnippetRepository } from "./saved-snippets/saved-snippet.repository";
import { ScheduledMessageRepository } from "./scheduled-messages/scheduled-message.repository";
import { PersonalIndex } from "./user-messages/personal-index";
import { ReceiverCache } from "./user-messages/receiver-cache";
import { ReadStateRepository } from "./user-messages/read-state.repository";
import { ChannelMessageCache } from "./messages/channel-message-cache";
import { ChannelRunRepository } from "./messages/channel-run.repository";
import { UserMessageRepository } from "./user-messages/user-message.repository";
import { UserTopicIndex } from "./user-topics/user-topic-index";
import { UserTopicRepository } from "./user-topics/user-topic.repository";
import { UserDirectory } from "./users/user-directory";
import { backfillCopies } from "./copies-backfill";
import { backfillContentFeatures } from "./messages/content-features-backfill";
import { migrateToReadStates } from "./user-messages/read-state-migration";
import { openSearchEngine } from "./search/open-search";
import { startSearchBackfill } from "./search/search-backfill";
import { ExportQueue } from "./realm-exports/export-queue";
import { MessagingTables } from "./realm-exports/messaging-tables";
import { RealmExporter } from "./realm-exports/realm-exporter";
import { RealmExportRepository } from "./realm-exports/realm-export.repository";

/** Drafts, scheduled messages, reminders and saved snippets kept for register, over all users; least recently used users go first. */
const MAX_CACHED_USER_LIST_ITEMS = 100_000;

/** The connections and settings messaging's collaborators are built from. */
interface Sources {
  db: Connection;
  nc: NatsConnection;
  log: Logger;
  bus: BusClient;
  events: EventPublisher<"messaging">;
  config: Config;
}

/**
 * Messaging's repositories, caches and clients, built in the order they always were, their
 * collections and indexes made, and stored data brought to the shape this version reads.
 * stop() stops the caches, then search; what uses them stops first.
 */
export async function openCollaborators({ db, nc, log, bus, events, config }: Sources) {
  const ids = new IdAllocator(db);
  const messageCache = new MessageCache(nc, log);
  const search = await openSearchEngine(config, db, log);
  const channelRuns = new ChannelRunRepository(db);
  const messages = new MessageRepository(db, ids, messageCache, search, channelRuns);
  const searchBackfill = await startSearchBackfill({ messages, search, ids, log });
  const userMessages = new UserMessageRepository(db);
  const conversations = new ConversationRepository(db, ids);
  const recent = new RecentMessages(messages, nc, log);
  const channelRepository = new ChannelRepository(db, ids);
  const subscriptionRepository = new SubscriptionRepository(db);
  const userTopicRepository = new UserTopicRepository(db);
  const alertWordRepository = new AlertWordRepository(db, ids);
  const mutedUserRepository = new MutedUserRepository(db, ids);
  const channels = new ChannelDirectory(channelRepository, events, nc, log);
  const subscriptions = new SubscriptionDirectory(subscriptionRepository, events, nc, log);
  const readStates = new ReadStateRepository(db);
  const channelMessages = new ChannelMessageCache(messages, channelRuns, nc, log);
  const history = new MessageHistory(messages, recent, channelMessages);
  const receivers = new ReceiverCache(readStates, nc, log);
  const personal = new PersonalIndex(
    messages,
    userMessages,
    readStates,
    conversations,
    channelMessages,
    recent,
    nc,
    log,
  );
  const topics = new TopicRepository(db);
  const userTopics = new UserTopicIndex(userTopicRepository, nc, log);
  const users = new UserDirectory(bus, nc, log);
  const notificationCandidates = new NotificationCandidateCache(
    subscriptionRepository,
    userTopicRepository,
    bus,
    nc,
    log,
  );
  const alertWords = new AlertWordIndex(alertWordRepository, nc, log);
  const mutedUsers = new MutedUserIndex(mutedUserRepository, nc, log);
  const sendReceipts = new SendReceiptRepository(db, new InstanceLiveness(nc));
  const lists = openUserLists(db, ids, nc, log);
  const settings = new RealmSettingsSource(bus, nc, log);
  const linkifiers = new LinkifierSource(bus, nc, log);
  const userGroups = new UserGroupMemberships(nc, bus, log);
  const attachments = new AttachmentRepository(db, ids);
  const files = new FileStore(db);
  const realmEmoji = new RealmEmojiSource(nc, bus, log);
  const uploadTokens = new UploadTokenRepository(db);
  const linkPreviews = new LinkPreviewRepository(db);
  const exports = new RealmExportRepository(db, ids);
  const exportQueue = await ExportQueue.open(nc, config.NATS_STREAM_REPLICAS, config.REALM_EXPORT_CLAIM_SECONDS, log);
  const exporter = new RealmExporter({ bus, tables: new MessagingTables(db, ids), files, exports }, log);
  await Promise.all(
    [
      channelRepository,
      subscriptionRepository,
      messages,
      userMessages,
      readStates,
      conversations,
      topics,
      userTopicRepository,
      alertWordRepository,
      mutedUserRepository,
      sendReceipts,
      lists.drafts,
      lists.scheduledMessages,
      lists.savedSnippets,
      attachments,
      files,
      uploadTokens,
      linkPreviews,
      exports,
      channelRuns,
    ].map((r) => r.init()),
  );
  await backfillCopies({ nc, db, channels: channelRepository, subscriptions: subscriptionRepository, events, log });
  await backfillContentFeatures({ db, messages, ids, log });
  await migrateToReadStates({ db, messages, subscriptions: subscriptionRepository, userMessages, readStates, log });
  return {
    search,
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    readStates,
    channelMessages,
    history,
    receivers,
    personal,
    topics,
    userTopics,
    users,
    notificationCandidates,
    alertWords,
    mutedUsers,
    sendReceipts,
    ...lists,
    settings,
    linkifiers,
    realmEmoji,
    attachments,
    files,
    uploadTokens,
    linkPreviews,
    exports,
    exportQueue,
    exporter,
    stop: async () => {
      users.stop();
      notificationCandidates.stop();
      personal.stop();
      receivers.stop();
      channelMessages.stop();
      userTopics.stop();
      alertWords.stop();
      mutedUsers.stop();
      settings.stop();
      linkifiers.stop();
      recent.stop();
      messageCache.stop();
      channels.stop();
      subscriptions.stop();
      userGroups.stop();
      realmEmoji.stop();
      for (const list of [lists.draftLists, lists.scheduledLists, lists.reminderLists, lists.snippetLists]) list.stop();
      await searchBackfill.stop();
      await search.close();
    },
  };
}

/** register's drafts, scheduled messages, reminders and saved snippets: their repositories and per-user caches. */
function openUserLists(db: Connection, ids: IdAllocator, nc: NatsConnection, log: Logger) {
  const drafts = new DraftRepository(db, ids);
  /**
   * register's drafts per user, dropped on the drafts events of every change, on user_lists_changed
   * (drafts deleted as synchronization stops) and on user_settings: turning synchronization on
   * again must not show a copy taken before that deletion
   */
  const draftLists = EventKeyedCache.listsByUser<messaging.Draft, typeof messagingEvents.draftsChanged.payload>(
    nc,
    log,
    messagingEvents.draftsChanged,
    "draft-lists",
    MAX_CACHED_USER_LIST_ITEMS,
  )
    .alsoDroppedBy(messagingEvents.userListsChanged)
    .alsoDroppedBy(identityEvents.userSettings);
  const scheduledMessages = new ScheduledMessageRepository(db, ids);
  /**
   * register's scheduled_messages per user, dropped on the scheduled_messages events of every change
   * and on user_lists_changed (the failure of a deactivated sender's message)
   */
  const scheduledLists = EventKeyedCache.listsByUser<
    messaging.ScheduledMessage,
    typeof messagingEvents.scheduledMessagesChanged.payload
  >(
    nc,
    log,
    messagingEvents.scheduledMessagesChanged,
    "scheduled-message-lists",
    MAX_CACHED_USER_LIST_ITEMS,
  ).alsoDroppedBy(messagingEvents.userListsChanged);
  /** register's reminders per user, dropped on the reminders events of every change and on a failure's user_lists_changed */
  const reminderLists = EventKeyedCache.listsByUser<
    messaging.Reminder,
    typeof messagingEvents.remindersChanged.payload
  >(nc, log, messagingEvents.remindersChanged, "reminder-lists", MAX_CACHED_USER_LIST_ITEMS).alsoDroppedBy(
    messagingEvents.userListsChanged,
  );
  const savedSnippets = new SavedSnippetRepository(db, ids);
  /** register's saved_snippets per user, dropped on the saved_snippets events of every change */
  const snippetLists = EventKeyedCache.listsByUser<
    messaging.SavedSnippet,
    typeof messagingEvents.savedSnippetsChanged.payload
  >(nc, log, messagingEvents.savedSnippetsChanged, "saved-snippet-lists", MAX_CACHED_USER_LIST_ITEMS);
  return { drafts, draftLists, scheduledMessages, scheduledLists, reminderLists, savedSnippets, snippetLists };
}

/** What openCollaborators builds: the composition root's to hand out, each module getting what it uses. */
export type Collaborators = Awaited<ReturnType<typeof openCollaborators>>;
