import {
  messaging,
  type BusServer,
  type EventPublisher,
  type RealmEmojiSource,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { DraftRepository } from "../drafts/draft.repository";
import type { MessageRepository } from "../messages/message.repository";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { LinkifierSource } from "../render/linkifier-source";
import type { SavedSnippetRepository } from "../saved-snippets/saved-snippet.repository";
import type { ScheduledMessageRepository } from "../scheduled-messages/scheduled-message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ReceiverCache } from "../user-messages/receiver-cache";
import type { UserDirectory } from "../users/user-directory";
import { createDraftsHandler, deleteDraftHandler, editDraftHandler, getDraftsHandler } from "../handlers/drafts";
import { createReminderHandler, deleteReminderHandler, getRemindersHandler } from "../handlers/reminders";
import {
  createSavedSnippetHandler,
  deleteSavedSnippetHandler,
  editSavedSnippetHandler,
  getSavedSnippetsHandler,
} from "../handlers/saved-snippets";
import {
  createScheduledMessageHandler,
  deleteScheduledMessageHandler,
  getScheduledMessagesHandler,
  updateScheduledMessageHandler,
} from "../handlers/scheduled-messages";

interface UserListOperationDeps {
  messages: MessageRepository;
  conversations: ConversationRepository;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  receivers: ReceiverCache;
  users: UserDirectory;
  drafts: DraftRepository;
  scheduledMessages: ScheduledMessageRepository;
  savedSnippets: SavedSnippetRepository;
  settings: RealmSettingsSource;
  linkifiers: LinkifierSource;
  realmEmoji: RealmEmojiSource;
  /** the server's INLINE_URL_EMBED_PREVIEW: organizations may turn link previews on */
  linkPreviewsAllowed: boolean;
  events: EventPublisher<"messaging">;
}

/** A user's own lists: drafts, scheduled messages, reminders and saved snippets. */
export function registerUserListOperations(server: BusServer, deps: UserListOperationDeps): void {
  registerDraftsAndSchedules(server, deps);
  registerSavedSnippets(server, deps);
}

/** Drafts, scheduled messages and reminders. */
function registerDraftsAndSchedules(
  server: BusServer,
  {
    messages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    receivers,
    users,
    drafts,
    scheduledMessages,
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    events,
  }: UserListOperationDeps,
): void {
  server
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
    .handle(messaging.deleteReminder, deleteReminderHandler({ scheduledMessages, events }));
}

/** Saved snippets. */
function registerSavedSnippets(server: BusServer, { savedSnippets, events }: UserListOperationDeps): void {
  server
    .handle(messaging.getSavedSnippets, getSavedSnippetsHandler({ savedSnippets }))
    .handle(messaging.createSavedSnippet, createSavedSnippetHandler({ savedSnippets, events }))
    .handle(messaging.editSavedSnippet, editSavedSnippetHandler({ savedSnippets, events }))
    .handle(messaging.deleteSavedSnippet, deleteSavedSnippetHandler({ savedSnippets, events }));
}
