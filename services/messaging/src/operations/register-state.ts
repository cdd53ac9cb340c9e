import { messaging, registerStateHandler, type BusServer, type UserGroupMemberships } from "@teamchat/shared";
import { alertWordsState } from "../alert-words/alert-words.state";
import type { AlertWordIndex } from "../alert-words/alert-word-index";
import type { ChannelDirectory } from "../channels/channel-directory";
import { channelPermissionsState } from "../channels/channel-permissions.state";
import { channelsState } from "../channels/channels.state";
import type { DraftRepository } from "../drafts/draft.repository";
import { draftsState, type DraftLists } from "../drafts/drafts.state";
import { messagesState } from "../messages/messages.state";
import { unreadsState } from "../messages/unreads.state";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import { mutedUsersState } from "../muted-users/muted-users.state";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { remindersState, type ReminderLists } from "../reminders/reminders";
import type { SavedSnippetRepository } from "../saved-snippets/saved-snippet.repository";
import { savedSnippetsState, type SavedSnippetLists } from "../saved-snippets/saved-snippets.state";
import type { ScheduledMessageRepository } from "../scheduled-messages/scheduled-message.repository";
import { scheduledMessagesState, type ScheduledMessageLists } from "../scheduled-messages/scheduled-messages.state";
import type { SearchEngine } from "../search/search-engine";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { subscriptionsState } from "../subscriptions/subscriptions.state";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import { userTopicsState } from "../user-topics/user-topics.state";
import type { UserDirectory } from "../users/user-directory";

/** register's messaging parts, one provider for each. */
export function registerStateOperation(
  server: BusServer,
  {
    search,
    channels,
    subscriptions,
    userGroups,
    personal,
    userTopics,
    users,
    alertWords,
    mutedUsers,
    drafts,
    draftLists,
    scheduledMessages,
    scheduledLists,
    reminderLists,
    savedSnippets,
    snippetLists,
    settings,
  }: {
    search: SearchEngine;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    personal: PersonalIndex;
    userTopics: UserTopicIndex;
    users: UserDirectory;
    alertWords: AlertWordIndex;
    mutedUsers: MutedUserIndex;
    drafts: DraftRepository;
    draftLists: DraftLists;
    scheduledMessages: ScheduledMessageRepository;
    scheduledLists: ScheduledMessageLists;
    reminderLists: ReminderLists;
    savedSnippets: SavedSnippetRepository;
    snippetLists: SavedSnippetLists;
    settings: RealmSettingsSource;
  },
): void {
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
  server.handle(messaging.registerState, registerStateHandler(messaging.registerState, stateProviders));
}
