import {
  EventKeyedCache,
  FileStore,
  RealmEmojiSource,
  IdAllocator,
  ReachableAddresses,
  UserGroupMemberships,
  ZULIP_VERSION,
  identityEvents,
  messaging,
  messagingEvents,
  registerStateHandler,
  ensureNotificationWorkStream,
  mailTransportFromConfig,
  type MailTransport,
  type RunningService,
  type ServiceDeps,
} from "@teamchat/shared";
import { AttachmentRepository } from "./attachments/attachment.repository";
import { AlertWordIndex } from "./alert-words/alert-word-index";
import { AlertWordRepository } from "./alert-words/alert-word.repository";
import { alertWordsState } from "./alert-words/alert-words.state";
import { ChannelDirectory } from "./channels/channel-directory";
import { ChannelRepository } from "./channels/channel.repository";
import { channelsState } from "./channels/channels.state";
import { channelPermissionsState } from "./channels/channel-permissions.state";
import { ConversationRepository } from "./conversations/conversation.repository";
import { RealmSettingsSource } from "./realm-settings/realm-settings-source";
import { DraftRepository } from "./drafts/draft.repository";
import { draftsState } from "./drafts/drafts.state";
import { deleteDraftsWhenSynchronizationStops } from "./drafts/synchronization";
import { LinkPreviewRepository } from "./link-previews/link-preview.repository";
import { fetchLinkPreviews } from "./link-previews/link-preview-worker";
import { createDraftsHandler, deleteDraftHandler, editDraftHandler, getDraftsHandler } from "./handlers/drafts";
import {
  createSavedSnippetHandler,
  deleteSavedSnippetHandler,
  editSavedSnippetHandler,
  getSavedSnippetsHandler,
} from "./handlers/saved-snippets";
import {
  createScheduledMessageHandler,
  deleteScheduledMessageHandler,
  getScheduledMessagesHandler,
  updateScheduledMessageHandler,
} from "./handlers/scheduled-messages";
import { LinkifierSource } from "./render/linkifier-source";
import { addAlertWordsHandler } from "./handlers/add-alert-words";
import { addReactionHandler } from "./handlers/add-reaction";
import { archiveStreamHandler } from "./handlers/archive-stream";
import { createChannelHandler } from "./handlers/create-channel";
import { addDefaultStreamHandler, removeDefaultStreamHandler } from "./handlers/default-streams";
import { deleteMessageHandler } from "./handlers/delete-message";
import { deleteTopicHandler } from "./handlers/delete-topic";
import { getConversationAudienceHandler } from "./handlers/get-conversation-audience";
import { getAlertWordsHandler } from "./handlers/get-alert-words";
import { listAttachmentsHandler } from "./handlers/list-attachments";
import { openTemporaryUploadHandler, openUploadHandler, temporaryUploadUrlHandler } from "./handlers/open-upload";
import { UploadTokenRepository } from "./attachments/upload-token.repository";
import { removeAttachmentHandler } from "./handlers/remove-attachment";
import { uploadFileHandler } from "./handlers/upload-file";
import { getMessageHandler } from "./handlers/get-message";
import { getMessageHistoryHandler } from "./handlers/get-message-history";
import { getMessagesHandler } from "./handlers/get-messages";
import { getReadReceiptsHandler } from "./handlers/get-read-receipts";
import { getStreamHandler } from "./handlers/get-stream";
import { getStreamEmailAddressHandler } from "./handlers/get-stream-email-address";
import { getStreamIdHandler } from "./handlers/get-stream-id";
import { getStreamTopicsHandler } from "./handlers/get-stream-topics";
import { getStreamsHandler } from "./handlers/get-streams";
import { getSubscribersHandler } from "./handlers/get-subscribers";
import { getSubscriptionStatusHandler } from "./handlers/get-subscription-status";
import { getUserChannelsHandler } from "./handlers/get-user-channels";
import { getSubscriptionsHandler } from "./handlers/get-subscriptions";
import { matchesNarrowHandler } from "./handlers/matches-narrow";
import { markAllAsReadHandler, markStreamAsReadHandler, markTopicAsReadHandler } from "./handlers/mark-as-read";
import { muteUserHandler } from "./handlers/mute-user";
import { removeAlertWordsHandler } from "./handlers/remove-alert-words";
import { removeReactionHandler } from "./handlers/remove-reaction";
import { sendSubmessageHandler } from "./handlers/send-submessage";
import { renderMessageHandler } from "./handlers/render-message";
import { reportMessageHandler } from "./handlers/report-message";
import { createReminderHandler, deleteReminderHandler, getRemindersHandler } from "./handlers/reminders";
import { remindersState } from "./reminders/reminders";
import { sendMessageHandler } from "./handlers/send-message";
import { setUpNewHumanUserHandler } from "./handlers/set-up-new-human-user";
import { testWelcomeBotCustomMessageHandler } from "./handlers/test-welcome-bot-custom-message";
import { subscribeHandler } from "./handlers/subscribe";
import { unmuteUserHandler } from "./handlers/unmute-user";
import { unsubscribeHandler } from "./handlers/unsubscribe";
import { updateSubscriptionPropertiesHandler } from "./handlers/update-subscription-properties";
import { updateSubscriptionsHandler } from "./handlers/update-subscriptions";
import { updateMessageHandler } from "./handlers/update-message";
import { updateStreamHandler } from "./handlers/update-stream";
import { updateMessageFlagsHandler } from "./handlers/update-message-flags";
import { updateMessageFlagsForNarrowHandler } from "./handlers/update-message-flags-for-narrow";
import { updateMutedTopicHandler } from "./handlers/update-muted-topic";
import { updateUserTopicHandler } from "./handlers/update-user-topic";
import { MessageCache } from "./messages/message-cache";
import { MessageHistory } from "./messages/message-history";
import { MessageRepository } from "./messages/message.repository";
import { RecentMessages } from "./messages/recent-messages";
import { messagesState } from "./messages/messages.state";
import { MutedUserIndex } from "./muted-users/muted-user-index";
import { MutedUserRepository } from "./muted-users/muted-user.repository";
import { InstanceLiveness } from "./send-receipts/instance-liveness";
import { SendReceiptRepository } from "./send-receipts/send-receipt.repository";
import { mutedUsersState } from "./muted-users/muted-users.state";
import { unreadsState } from "./messages/unreads.state";
import { SubscriptionDirectory } from "./subscriptions/subscription-directory";
import { SubscriptionRepository } from "./subscriptions/subscription.repository";
import { subscriptionsState } from "./subscriptions/subscriptions.state";
import { TopicRepository } from "./topics/topic.repository";
import { SavedSnippetRepository } from "./saved-snippets/saved-snippet.repository";
import { savedSnippetsState } from "./saved-snippets/saved-snippets.state";
import { ScheduledMessageDelivery } from "./scheduled-messages/delivery";
import { ScheduledMessageRepository } from "./scheduled-messages/scheduled-message.repository";
import { scheduledMessagesState } from "./scheduled-messages/scheduled-messages.state";
import { PersonalIndex } from "./user-messages/personal-index";
import { ReceiverCache } from "./user-messages/receiver-cache";
import { ReadStateRepository } from "./user-messages/read-state.repository";
import { ChannelMessageCache } from "./messages/channel-message-cache";
import { ChannelRunRepository } from "./messages/channel-run.repository";
import { UserMessageRepository } from "./user-messages/user-message.repository";
import { UserTopicIndex } from "./user-topics/user-topic-index";
import { UserTopicRepository } from "./user-topics/user-topic.repository";
import { userTopicsState } from "./user-topics/user-topics.state";
import { UserDirectory } from "./users/user-directory";
import { MissedMessageMailer } from "./missed-message-emails/missed-message-mailer";
import { EmailBatchRepository } from "./missed-message-emails/email-batch.repository";
import { EmailNoticeRepository } from "./missed-message-emails/email-notice.repository";
import { PendingEmailRepository } from "./missed-message-emails/pending-email.repository";
import type { TopicContextDeps } from "./missed-message-emails/topic-context";
import { DigestMailer } from "./digest/digest-mailer";
import { DigestRepository } from "./digest/digest.repository";
import { DigestSchedule } from "./digest/digest-schedule";
import { getNotificationFactsHandler } from "./handlers/get-notification-facts";
import { getUnreadMessageIdsHandler } from "./handlers/get-unread-message-ids";
import { backfillCopies } from "./copies-backfill";
import { backfillContentFeatures } from "./messages/content-features-backfill";
import { migrateToReadStates } from "./user-messages/read-state-migration";
import { openSearchEngine } from "./search/open-search";
import { startSearchBackfill } from "./search/search-backfill";
import { ExportQueue } from "./realm-exports/export-queue";
import { MessagingTables } from "./realm-exports/messaging-tables";
import { RealmExporter } from "./realm-exports/realm-exporter";
import { RealmExportRepository } from "./realm-exports/realm-export.repository";
import { startRealmExportWorker } from "./realm-exports/realm-export-worker";
import { deleteRealmExportHandler, exportRealmHandler, getRealmExportsHandler } from "./handlers/realm-exports";
import { importAttachmentsHandler, importChannelsHandler, importMessagesHandler } from "./handlers/import-realm";

/** Drafts, scheduled messages, reminders and saved snippets kept for register, over all users; least recently used users go first. */
const MAX_CACHED_USER_LIST_ITEMS = 100_000;

/** Composition root: real connections in, a serving bus endpoint out. */
/** Zulip's url_preview TIMEOUT: how long one page's fetch may take. */
const LINK_PREVIEW_TIMEOUT_MS = 15_000;

export async function buildMessaging(deps: ServiceDeps<"messaging">): Promise<RunningService> {
  const { db, nc, log, bus, events } = deps;
  const timeBudgetSeconds = deps.config.DELETE_TOPIC_TIME_BUDGET_SECONDS;
  const ids = new IdAllocator(db);
  const messageCache = new MessageCache(nc, log);
  const search = await openSearchEngine(deps.config, db, log);
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
  const personal = new PersonalIndex(messages, userMessages, readStates, conversations, channelMessages, nc, log);
  const topics = new TopicRepository(db);
  const userTopics = new UserTopicIndex(userTopicRepository, nc, log);
  const users = new UserDirectory(bus, nc, log);
  const alertWords = new AlertWordIndex(alertWordRepository, nc, log);
  const mutedUsers = new MutedUserIndex(mutedUserRepository, nc, log);
  const sendReceipts = new SendReceiptRepository(db, new InstanceLiveness(nc));
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
  const settings = new RealmSettingsSource(bus, nc, log);
  const linkifiers = new LinkifierSource(bus, nc, log);
  const userGroups = new UserGroupMemberships(nc, bus, log);
  const attachments = new AttachmentRepository(db, ids);
  const files = new FileStore(db);
  const realmEmoji = new RealmEmojiSource(nc, bus, log);
  // the server's INLINE_URL_EMBED_PREVIEW: whether organizations may turn link previews on
  const linkPreviewsAllowed = deps.config.INLINE_URL_EMBED_PREVIEW;
  const fileChunks = files.handlers();
  const uploadTokens = new UploadTokenRepository(db);
  const linkPreviews = new LinkPreviewRepository(db);
  const exports = new RealmExportRepository(db, ids);
  const exportQueue = await ExportQueue.open(
    nc,
    deps.config.NATS_STREAM_REPLICAS,
    deps.config.REALM_EXPORT_CLAIM_SECONDS,
    log,
  );
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
      drafts,
      scheduledMessages,
      savedSnippets,
      attachments,
      files,
      uploadTokens,
      linkPreviews,
      exports,
      channelRuns,
    ].map((r) => r.init()),
  );
  await backfillCopies({
    nc,
    db,
    channels: channelRepository,
    subscriptions: subscriptionRepository,
    events,
    log,
  });
  await backfillContentFeatures({ db, messages, ids, log });
  await migrateToReadStates({ db, messages, subscriptions: subscriptionRepository, userMessages, readStates, log });
  const draftsCleanup = await deleteDraftsWhenSynchronizationStops({ drafts, events }, nc, log);
  const linkPreviewFetching = await fetchLinkPreviews(
    {
      messages,
      userMessages,
      channels,
      subscriptions,
      userGroups,
      readStates,
      receivers,
      users,
      settings,
      linkifiers,
      realmEmoji,
      linkPreviewsAllowed,
      linkPreviews,
      events,
    },
    {
      addresses: new ReachableAddresses(deps.config.CAMO_ALLOWED_PRIVATE_ADDRESSES),
      timeoutMs: LINK_PREVIEW_TIMEOUT_MS,
      userAgent: `Mozilla/5.0 (compatible; ZulipURLPreview/${ZULIP_VERSION})`,
    },
    nc,
    log,
  );
  const delivery = new ScheduledMessageDelivery(
    {
      db,
      messages,
      userMessages,
      conversations,
      channels,
      subscriptions,
      userGroups,
      readStates,
      receivers,
      topics,
      users,
      alertWords,
      mutedUsers,
      scheduledMessages,
      settings,
      linkifiers,
      realmEmoji,
      linkPreviewsAllowed,
      events,
    },
    log,
  );

  const stateProviders = [
    ...messagesState({ personal, search }),
    ...subscriptionsState({ channels, subscriptions, userGroups }),
    ...channelsState({ channels, subscriptions, userGroups }),
    ...userTopicsState({ channels, userTopics, settings }),
    ...unreadsState({ subscriptions, personal, userTopics, settings }),
    ...alertWordsState({ alertWords }),
    ...mutedUsersState({ mutedUsers }),
    ...channelPermissionsState({ userGroups, settings }),
    ...draftsState({ users, drafts, draftLists }),
    ...scheduledMessagesState({ scheduledMessages, scheduledLists }),
    ...remindersState({ scheduledMessages, reminderLists }),
    ...savedSnippetsState({ savedSnippets, snippetLists }),
  ];

  deps.server
    .handle(
      messaging.createChannel,
      createChannelHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(messaging.getStreams, getStreamsHandler({ channels, subscriptions, userGroups, users }))
    .handle(messaging.getStreamById, getStreamHandler({ channels, subscriptions, userGroups }))
    .handle(messaging.getStreamId, getStreamIdHandler({ channels, subscriptions, userGroups }))
    .handle(messaging.getSubscribers, getSubscribersHandler({ channels, subscriptions, userGroups, users }))
    .handle(
      messaging.getStreamEmailAddress,
      getStreamEmailAddressHandler({ channels, subscriptions, userGroups, users }),
    )
    .handle(
      messaging.getSubscriptionStatus,
      getSubscriptionStatusHandler({ channels, subscriptions, userGroups, users }),
    )
    .handle(
      messaging.updateStream,
      updateStreamHandler({ channels, subscriptions, userGroups, users, events, settings }),
    )
    .handle(messaging.archiveStream, archiveStreamHandler({ channels, subscriptions, userGroups, users, events }))
    .handle(messaging.addDefaultStream, addDefaultStreamHandler({ channels, subscriptions, userGroups, users, events }))
    .handle(
      messaging.removeDefaultStream,
      removeDefaultStreamHandler({ channels, subscriptions, userGroups, users, events }),
    )
    .handle(
      messaging.setUpNewHumanUser,
      setUpNewHumanUserHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(
      messaging.testWelcomeBotCustomMessage,
      testWelcomeBotCustomMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        userGroups,
        readStates,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(messaging.getSubscriptions, getSubscriptionsHandler({ channels, subscriptions, userGroups }))
    .handle(messaging.getUserChannels, getUserChannelsHandler({ channels, subscriptions, userGroups, users }))
    .handle(
      messaging.subscribe,
      subscribeHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(
      messaging.unsubscribe,
      unsubscribeHandler({
        channels,
        subscriptions,
        userGroups,
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        users,
        events,
        settings,
      }),
    )
    .handle(
      messaging.updateSubscriptions,
      updateSubscriptionsHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        personal,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(
      messaging.updateSubscriptionProperties,
      updateSubscriptionPropertiesHandler({ channels, subscriptions, userGroups, events }),
    )
    .handle(
      messaging.sendMessage,
      sendMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        topics,
        users,
        alertWords,
        mutedUsers,
        sendReceipts,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        attachments,
        events,
      }),
    )
    .handle(
      messaging.getMessages,
      getMessagesHandler({
        search,
        messages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        history,
        receivers,
        personal,
        userTopics,
        users,
        settings,
        linkifiers,
      }),
    )
    .handle(
      messaging.getMessage,
      getMessageHandler({
        messages,
        channels,
        subscriptions,
        userGroups,
        receivers,
        personal,
        users,
        settings,
        linkifiers,
      }),
    )
    .handle(
      messaging.updateMessage,
      updateMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        receivers,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        attachments,
        events,
      }),
    )
    .handle(
      messaging.deleteMessage,
      deleteMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        topics,
        users,
        settings,
        attachments,
        events,
      }),
    )
    .handle(
      messaging.reportMessage,
      reportMessageHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        topics,
        users,
        alertWords,
        mutedUsers,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(
      messaging.deleteTopic,
      deleteTopicHandler({
        db,
        messages,
        userMessages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        topics,
        users,
        settings,
        attachments,
        events,
        timeBudgetSeconds,
      }),
    )
    .handle(
      messaging.getMessageHistory,
      getMessageHistoryHandler({ messages, channels, subscriptions, userGroups, receivers, settings }),
    )
    .handle(
      messaging.addReaction,
      addReactionHandler({
        messages,
        userMessages,
        channels,
        subscriptions,
        userGroups,
        receivers,
        users,
        realmEmoji,
        events,
      }),
    )
    .handle(
      messaging.removeReaction,
      removeReactionHandler({ messages, channels, subscriptions, userGroups, receivers, users, realmEmoji, events }),
    )
    .handle(
      messaging.sendSubmessage,
      sendSubmessageHandler({ messages, channels, subscriptions, userGroups, receivers, events }),
    )
    .handle(
      messaging.renderMessage,
      renderMessageHandler({ channels, userGroups, users, settings, linkifiers, realmEmoji, linkPreviewsAllowed }),
    )
    .handle(
      messaging.matchesNarrow,
      matchesNarrowHandler({
        search,
        messages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        personal,
        userTopics,
        users,
        settings,
      }),
    )
    .handle(
      messaging.getReadReceipts,
      getReadReceiptsHandler({
        messages,
        userMessages,
        channels,
        subscriptions,
        userGroups,
        readStates,
        receivers,
        users,
        mutedUsers,
        settings,
      }),
    )
    .handle(
      messaging.updateMessageFlags,
      updateMessageFlagsHandler({
        messages,
        userMessages,
        channels,
        subscriptions,
        userGroups,
        readStates,
        channelMessages,
        receivers,
        personal,
        userTopics,
        events,
      }),
    )
    .handle(
      messaging.updateMessageFlagsForNarrow,
      updateMessageFlagsForNarrowHandler({
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
        userTopics,
        users,
        settings,
        events,
      }),
    )
    .handle(
      messaging.markAllAsRead,
      markAllAsReadHandler({ userMessages, readStates, channelMessages, personal, events }),
    )
    .handle(
      messaging.markStreamAsRead,
      markStreamAsReadHandler({
        channels,
        subscriptions,
        userGroups,
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        events,
      }),
    )
    .handle(
      messaging.markTopicAsRead,
      markTopicAsReadHandler({
        channels,
        subscriptions,
        userGroups,
        messages,
        userMessages,
        readStates,
        channelMessages,
        personal,
        events,
      }),
    )
    .handle(
      messaging.getStreamTopics,
      getStreamTopicsHandler({ channels, subscriptions, userGroups, messages, topics, readStates, settings }),
    )
    .handle(
      messaging.updateMutedTopic,
      updateMutedTopicHandler({ channels, subscriptions, userGroups, userTopics, events, settings }),
    )
    .handle(
      messaging.updateUserTopic,
      updateUserTopicHandler({ channels, subscriptions, userGroups, userTopics, events, settings }),
    )
    .handle(
      messaging.getConversationAudience,
      getConversationAudienceHandler({ messages, channels, subscriptions, userGroups, receivers, users }),
    )
    .handle(messaging.getAlertWords, getAlertWordsHandler({ alertWords }))
    .handle(messaging.addAlertWords, addAlertWordsHandler({ alertWords, events }))
    .handle(messaging.removeAlertWords, removeAlertWordsHandler({ alertWords, events }))
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
    .handle(messaging.uploadFile, uploadFileHandler({ events, attachments, files }))
    .handle(messaging.uploadFiles.putChunk, fileChunks.put)
    .handle(messaging.uploadFiles.readChunk, fileChunks.read)
    .handle(
      messaging.openUpload,
      openUploadHandler({ messages, channels, subscriptions, userGroups, receivers, attachments, exports }),
    )
    .handle(
      messaging.temporaryUploadUrl,
      temporaryUploadUrlHandler({
        messages,
        channels,
        subscriptions,
        userGroups,
        receivers,
        attachments,
        uploadTokens,
      }),
    )
    .handle(messaging.openTemporaryUpload, openTemporaryUploadHandler({ attachments, uploadTokens }))
    .handle(messaging.listAttachments, listAttachmentsHandler({ attachments }))
    .handle(messaging.removeAttachment, removeAttachmentHandler({ events, attachments, files }))
    .handle(messaging.unmuteUser, unmuteUserHandler({ users, mutedUsers, events }))
    .handle(messaging.getDrafts, getDraftsHandler({ users, drafts }))
    .handle(
      messaging.createDrafts,
      createDraftsHandler({ channels, subscriptions, userGroups, users, drafts, events, settings }),
    )
    .handle(
      messaging.editDraft,
      editDraftHandler({ channels, subscriptions, userGroups, users, drafts, events, settings }),
    )
    .handle(messaging.deleteDraft, deleteDraftHandler({ users, drafts, events }))
    .handle(messaging.getScheduledMessages, getScheduledMessagesHandler({ scheduledMessages }))
    .handle(
      messaging.createScheduledMessage,
      createScheduledMessageHandler({
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        users,
        scheduledMessages,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(
      messaging.updateScheduledMessage,
      updateScheduledMessageHandler({
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        users,
        scheduledMessages,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(messaging.deleteScheduledMessage, deleteScheduledMessageHandler({ scheduledMessages, events }))
    .handle(
      messaging.createReminder,
      createReminderHandler({
        messages,
        conversations,
        channels,
        subscriptions,
        userGroups,
        receivers,
        users,
        scheduledMessages,
        settings,
        linkifiers,
        realmEmoji,
        linkPreviewsAllowed,
        events,
      }),
    )
    .handle(messaging.getReminders, getRemindersHandler({ scheduledMessages }))
    .handle(messaging.deleteReminder, deleteReminderHandler({ scheduledMessages, events }))
    .handle(messaging.getSavedSnippets, getSavedSnippetsHandler({ savedSnippets }))
    .handle(messaging.createSavedSnippet, createSavedSnippetHandler({ savedSnippets, events }))
    .handle(messaging.editSavedSnippet, editSavedSnippetHandler({ savedSnippets, events }))
    .handle(messaging.deleteSavedSnippet, deleteSavedSnippetHandler({ savedSnippets, events }))
    .handle(messaging.getNotificationFacts, getNotificationFactsHandler({ mutedUsers, subscriptions, userTopics }))
    .handle(messaging.getUnreadMessageIds, getUnreadMessageIdsHandler({ messages, userMessages, readStates }))
    .handle(messaging.exportRealm, exportRealmHandler({ exports, users, events, queue: exportQueue, bus }))
    .handle(messaging.getRealmExports, getRealmExportsHandler({ exports }))
    .handle(messaging.deleteRealmExport, deleteRealmExportHandler({ exports, users, events, files }))
    .handle(messaging.importChannels, importChannelsHandler({ channels, subscriptions, messages, readStates }))
    .handle(
      messaging.importMessages,
      importMessagesHandler({ channels, subscriptions, messages, userMessages, readStates, conversations, topics }),
    )
    .handle(messaging.importAttachments, importAttachmentsHandler({ attachments, messages }))
    .handle(messaging.registerState, registerStateHandler(messaging.registerState, stateProviders));
  delivery.start();
  startRealmExportWorker(
    {
      db,
      messages,
      userMessages,
      conversations,
      channels,
      userGroups,
      readStates,
      topics,
      users,
      alertWords,
      mutedUsers,
      settings,
      linkifiers,
      realmEmoji,
      linkPreviewsAllowed,
      exports,
      queue: exportQueue,
      exporter,
      events,
    },
    log,
  );
  // one transport (one SMTP connection pool) for both mailers, closed once both have stopped
  const mailTransport = mailTransportFromConfig(deps.config, log);
  const mailer = await startMissedMessageMailer(
    deps,
    mailTransport,
    { userMessages, readStates },
    { receivers, messages, channels, subscriptions, userGroups, users },
  );
  const digest = await startDigest(deps, mailTransport, { users, channels, subscriptions, messages, readStates });
  return {
    stop: async () => {
      await digest.stop();
      await mailer.stop();
      mailTransport.close();
      await delivery.stop();
      await exportQueue.stop();
      await draftsCleanup.stop();
      await linkPreviewFetching.stop();
      users.stop();
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
      draftLists.stop();
      scheduledLists.stop();
      reminderLists.stop();
      snippetLists.stop();
      await searchBackfill.stop();
      await search.close();
    },
  };
}

/** How often each instance looks for missed-message email batches that are due. */
const MISSED_MESSAGE_POLL_MS = 1000;

async function startMissedMessageMailer(
  { db, nc, bus, config, log }: ServiceDeps<"messaging">,
  transport: MailTransport,
  flags: { userMessages: UserMessageRepository; readStates: ReadStateRepository },
  topicContext: TopicContextDeps,
): Promise<MissedMessageMailer> {
  const notices = new EmailNoticeRepository(db);
  const pending = new PendingEmailRepository(db);
  const batches = new EmailBatchRepository(db);
  await Promise.all([notices.init(), pending.init(), batches.init()]);
  await ensureNotificationWorkStream(nc, config.NATS_STREAM_REPLICAS);
  const mailer = new MissedMessageMailer({
    nc,
    bus,
    notices,
    pending,
    batches,
    ...flags,
    ...topicContext,
    transport,
    log,
    pollMs: MISSED_MESSAGE_POLL_MS,
  });
  await mailer.start();
  return mailer;
}

/**
 * The weekly digest: every instance checks for organizations whose digest day
 * has come and consumes the digests queued (ensureNotificationWorkStream made
 * the consumer with the missed-message mailer's).
 */
async function startDigest(
  { db, nc, bus, config, log }: ServiceDeps<"messaging">,
  transport: MailTransport,
  data: Pick<
    ConstructorParameters<typeof DigestMailer>[0],
    "users" | "channels" | "subscriptions" | "messages" | "readStates"
  >,
): Promise<{ stop(): Promise<void> }> {
  const digests = new DigestRepository(db);
  await digests.init();
  const mailer = new DigestMailer({ nc, bus, digests, transport, log, ...data });
  await mailer.start();
  const schedule = new DigestSchedule({
    nc,
    bus,
    users: data.users,
    digests,
    log,
    intervalMs: config.DIGEST_CHECK_INTERVAL_SECONDS * 1000,
  });
  schedule.start();
  return {
    stop: async () => {
      await schedule.stop();
      await mailer.stop();
    },
  };
}
