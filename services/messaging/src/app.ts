import {
  EventKeyedCache,
  FileStore,
  RealmEmojiSource,
  IdAllocator,
  UserGroupMemberships,
  messaging,
  messagingEvents,
  registerStateHandler,
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
import { RealmSettingsSource, type MessagingDeps } from "./deps";
import { DraftRepository } from "./drafts/draft.repository";
import { draftsState } from "./drafts/drafts.state";
import { deleteDraftsWhenSynchronizationStops } from "./drafts/synchronization";
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
import { getSubscriptionsHandler } from "./handlers/get-subscriptions";
import { matchesNarrowHandler } from "./handlers/matches-narrow";
import { markAllAsReadHandler, markStreamAsReadHandler, markTopicAsReadHandler } from "./handlers/mark-as-read";
import { muteUserHandler } from "./handlers/mute-user";
import { removeAlertWordsHandler } from "./handlers/remove-alert-words";
import { removeReactionHandler } from "./handlers/remove-reaction";
import { renderMessageHandler } from "./handlers/render-message";
import { sendMessageHandler } from "./handlers/send-message";
import { setUpNewHumanUserHandler } from "./handlers/set-up-new-human-user";
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
import { UserMessageRepository } from "./user-messages/user-message.repository";
import { UserTopicIndex } from "./user-topics/user-topic-index";
import { UserTopicRepository } from "./user-topics/user-topic.repository";
import { userTopicsState } from "./user-topics/user-topics.state";
import { UserDirectory } from "./users/user-directory";
import { backfillCopies } from "./copies-backfill";

/** Scheduled messages and saved snippets kept for register, over all users; least recently used users go first. */
const MAX_CACHED_USER_LIST_ITEMS = 100_000;

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildMessaging(deps: ServiceDeps<"messaging">): Promise<RunningService> {
  const ids = new IdAllocator(deps.db);
  const messageCache = new MessageCache(deps.nc, deps.log);
  const messages = new MessageRepository(deps.db, ids, messageCache);
  const userMessages = new UserMessageRepository(deps.db);
  const conversations = new ConversationRepository(deps.db, ids);
  const recent = new RecentMessages(messages, deps.nc, deps.log);
  const channels = new ChannelRepository(deps.db, ids);
  const subscriptions = new SubscriptionRepository(deps.db);
  const userTopics = new UserTopicRepository(deps.db);
  const alertWords = new AlertWordRepository(deps.db, ids);
  const mutedUsers = new MutedUserRepository(deps.db, ids);
  const m: MessagingDeps = {
    db: deps.db,
    channels: new ChannelDirectory(channels, deps.events, deps.nc, deps.log),
    subscriptions: new SubscriptionDirectory(subscriptions, deps.events, deps.nc, deps.log),
    messages,
    history: new MessageHistory(messages, recent),
    userMessages,
    personal: new PersonalIndex(messages, userMessages, conversations, deps.nc, deps.log),
    conversations,
    topics: new TopicRepository(deps.db),
    userTopics: new UserTopicIndex(userTopics, deps.nc, deps.log),
    users: new UserDirectory(deps.bus, deps.nc, deps.log),
    alertWords: new AlertWordIndex(alertWords, deps.nc, deps.log),
    mutedUsers: new MutedUserIndex(mutedUsers, deps.nc, deps.log),
    sendReceipts: new SendReceiptRepository(deps.db, new InstanceLiveness(deps.nc)),
    drafts: new DraftRepository(deps.db, ids),
    scheduledMessages: new ScheduledMessageRepository(deps.db, ids),
    scheduledLists: EventKeyedCache.listsByUser(
      deps.nc,
      deps.log,
      messagingEvents.scheduledMessagesChanged,
      "scheduled-message-lists",
      MAX_CACHED_USER_LIST_ITEMS,
    ),
    savedSnippets: new SavedSnippetRepository(deps.db, ids),
    snippetLists: EventKeyedCache.listsByUser(
      deps.nc,
      deps.log,
      messagingEvents.savedSnippetsChanged,
      "saved-snippet-lists",
      MAX_CACHED_USER_LIST_ITEMS,
    ),
    events: deps.events,
    settings: new RealmSettingsSource(deps.bus, deps.nc, deps.log),
    linkifiers: new LinkifierSource(deps.bus, deps.nc, deps.log),
    userGroups: new UserGroupMemberships(deps.nc, deps.bus, deps.log),
    attachments: new AttachmentRepository(deps.db, ids),
    files: new FileStore(deps.db),
    realmEmoji: new RealmEmojiSource(deps.nc, deps.bus, deps.log),
  };
  const fileChunks = m.files.handlers();
  const uploadTokens = new UploadTokenRepository(deps.db);
  await Promise.all(
    [
      channels,
      subscriptions,
      m.messages,
      m.userMessages,
      m.conversations,
      m.topics,
      userTopics,
      alertWords,
      mutedUsers,
      m.sendReceipts,
      m.drafts,
      m.scheduledMessages,
      m.savedSnippets,
      m.attachments,
      m.files,
      uploadTokens,
    ].map((r) => r.init()),
  );
  await backfillCopies({ nc: deps.nc, db: deps.db, channels, subscriptions, events: deps.events, log: deps.log });
  const draftsCleanup = await deleteDraftsWhenSynchronizationStops(m, deps.nc, deps.log);
  const delivery = new ScheduledMessageDelivery(m, deps.log);

  const stateProviders = [
    ...messagesState(m),
    ...subscriptionsState(m),
    ...channelsState(m),
    ...userTopicsState(m),
    ...unreadsState(m),
    ...alertWordsState(m),
    ...mutedUsersState(m),
    ...channelPermissionsState(m),
    ...draftsState(m),
    ...scheduledMessagesState(m),
    ...savedSnippetsState(m),
  ];

  deps.server
    .handle(messaging.createChannel, createChannelHandler(m))
    .handle(messaging.getStreams, getStreamsHandler(m))
    .handle(messaging.getStreamById, getStreamHandler(m))
    .handle(messaging.getStreamId, getStreamIdHandler(m))
    .handle(messaging.getSubscribers, getSubscribersHandler(m))
    .handle(messaging.getStreamEmailAddress, getStreamEmailAddressHandler(m))
    .handle(messaging.getSubscriptionStatus, getSubscriptionStatusHandler(m))
    .handle(messaging.updateStream, updateStreamHandler(m))
    .handle(messaging.archiveStream, archiveStreamHandler(m))
    .handle(messaging.addDefaultStream, addDefaultStreamHandler(m))
    .handle(messaging.removeDefaultStream, removeDefaultStreamHandler(m))
    .handle(messaging.setUpNewHumanUser, setUpNewHumanUserHandler(m))
    .handle(messaging.getSubscriptions, getSubscriptionsHandler(m))
    .handle(messaging.subscribe, subscribeHandler(m))
    .handle(messaging.unsubscribe, unsubscribeHandler(m))
    .handle(messaging.updateSubscriptions, updateSubscriptionsHandler(m))
    .handle(messaging.updateSubscriptionProperties, updateSubscriptionPropertiesHandler(m))
    .handle(messaging.sendMessage, sendMessageHandler(m))
    .handle(messaging.getMessages, getMessagesHandler(m))
    .handle(messaging.getMessage, getMessageHandler(m))
    .handle(messaging.updateMessage, updateMessageHandler(m))
    .handle(messaging.deleteMessage, deleteMessageHandler(m))
    .handle(messaging.deleteTopic, deleteTopicHandler(m, deps.config.DELETE_TOPIC_TIME_BUDGET_SECONDS))
    .handle(messaging.getMessageHistory, getMessageHistoryHandler(m))
    .handle(messaging.addReaction, addReactionHandler(m))
    .handle(messaging.removeReaction, removeReactionHandler(m))
    .handle(messaging.renderMessage, renderMessageHandler(m))
    .handle(messaging.matchesNarrow, matchesNarrowHandler(m))
    .handle(messaging.getReadReceipts, getReadReceiptsHandler(m))
    .handle(messaging.updateMessageFlags, updateMessageFlagsHandler(m))
    .handle(messaging.updateMessageFlagsForNarrow, updateMessageFlagsForNarrowHandler(m))
    .handle(messaging.markAllAsRead, markAllAsReadHandler(m))
    .handle(messaging.markStreamAsRead, markStreamAsReadHandler(m))
    .handle(messaging.markTopicAsRead, markTopicAsReadHandler(m))
    .handle(messaging.getStreamTopics, getStreamTopicsHandler(m))
    .handle(messaging.updateMutedTopic, updateMutedTopicHandler(m))
    .handle(messaging.updateUserTopic, updateUserTopicHandler(m))
    .handle(messaging.getConversationAudience, getConversationAudienceHandler(m))
    .handle(messaging.getAlertWords, getAlertWordsHandler(m))
    .handle(messaging.addAlertWords, addAlertWordsHandler(m))
    .handle(messaging.removeAlertWords, removeAlertWordsHandler(m))
    .handle(messaging.muteUser, muteUserHandler(m))
    .handle(messaging.uploadFile, uploadFileHandler(m))
    .handle(messaging.uploadFiles.putChunk, fileChunks.put)
    .handle(messaging.uploadFiles.readChunk, fileChunks.read)
    .handle(messaging.openUpload, openUploadHandler(m))
    .handle(messaging.temporaryUploadUrl, temporaryUploadUrlHandler({ ...m, tokens: uploadTokens }))
    .handle(messaging.openTemporaryUpload, openTemporaryUploadHandler({ ...m, tokens: uploadTokens }))
    .handle(messaging.listAttachments, listAttachmentsHandler(m))
    .handle(messaging.removeAttachment, removeAttachmentHandler(m))
    .handle(messaging.unmuteUser, unmuteUserHandler(m))
    .handle(messaging.getDrafts, getDraftsHandler(m))
    .handle(messaging.createDrafts, createDraftsHandler(m))
    .handle(messaging.editDraft, editDraftHandler(m))
    .handle(messaging.deleteDraft, deleteDraftHandler(m))
    .handle(messaging.getScheduledMessages, getScheduledMessagesHandler(m))
    .handle(messaging.createScheduledMessage, createScheduledMessageHandler(m))
    .handle(messaging.updateScheduledMessage, updateScheduledMessageHandler(m))
    .handle(messaging.deleteScheduledMessage, deleteScheduledMessageHandler(m))
    .handle(messaging.getSavedSnippets, getSavedSnippetsHandler(m))
    .handle(messaging.createSavedSnippet, createSavedSnippetHandler(m))
    .handle(messaging.editSavedSnippet, editSavedSnippetHandler(m))
    .handle(messaging.deleteSavedSnippet, deleteSavedSnippetHandler(m))
    .handle(messaging.registerState, registerStateHandler(messaging.registerState, stateProviders));
  delivery.start();
  return {
    stop: async () => {
      await delivery.stop();
      await draftsCleanup.stop();
      m.users.stop();
      m.personal.stop();
      m.userTopics.stop();
      m.alertWords.stop();
      m.mutedUsers.stop();
      m.settings.stop();
      m.linkifiers.stop();
      recent.stop();
      messageCache.stop();
      m.channels.stop();
      m.subscriptions.stop();
      m.userGroups.stop();
      m.realmEmoji.stop();
    },
  };
}
