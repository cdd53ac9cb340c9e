import type { BusClient, BusServer, Connection, EventPublisher, RunningService, ServiceDeps } from "@teamchat/shared";
import { openCollaborators, type Collaborators } from "./collaborators";
import { deleteDraftsWhenSynchronizationStops } from "./drafts/synchronization";
import { fetchLinkPreviews } from "./link-previews/link-preview-worker";
import { zulipPageFetchSettings } from "./link-previews/page-preview";
import { startMailers } from "./mailers";
import { registerAlertWordOperations } from "./operations/alert-words";
import { registerChannelOperations } from "./operations/channels";
import { registerMessageOperations } from "./operations/messages";
import { registerMutedUserOperations } from "./operations/muted-users";
import { registerNotificationFactOperations } from "./operations/notification-facts";
import { registerRealmExportImportOperations } from "./operations/realm-export-import";
import { registerStateOperation } from "./operations/register-state";
import { registerUploadOperations } from "./operations/uploads";
import { registerUserListOperations } from "./operations/user-lists";
import { startRealmExportWorker } from "./realm-exports/realm-export-worker";
import { ScheduledMessageDelivery } from "./scheduled-messages/delivery";

/** Composition root: real connections in, a serving bus endpoint out. */
export async function buildMessaging({
  db,
  nc,
  log,
  bus,
  events,
  config,
  server,
}: ServiceDeps<"messaging">): Promise<RunningService> {
  const timeBudgetSeconds = config.DELETE_TOPIC_TIME_BUDGET_SECONDS;
  // the server's INLINE_URL_EMBED_PREVIEW: whether organizations may turn link previews on
  const linkPreviewsAllowed = config.INLINE_URL_EMBED_PREVIEW;
  const collaborators = await openCollaborators({ db, nc, log, bus, events, config });
  const { messages, userMessages, readStates, conversations, topics, receivers, users, channels } = collaborators;
  const { subscriptions, userGroups, alertWords, mutedUsers, settings, linkifiers, realmEmoji, drafts } = collaborators;
  const { scheduledMessages, linkPreviews, exports, exportQueue, exporter, notificationCandidates } = collaborators;
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
    zulipPageFetchSettings(config.CAMO_ALLOWED_PRIVATE_ADDRESSES),
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
      notificationCandidates,
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
  registerChannelAndMessageOperations(server, { db, events }, collaborators, {
    linkPreviewsAllowed,
    timeBudgetSeconds,
  });
  registerUserAndOrganizationOperations(server, { bus, events }, collaborators, { linkPreviewsAllowed });
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
      notificationCandidates,
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
  const mailers = await startMailers({
    db,
    nc,
    bus,
    config,
    log,
    messages,
    userMessages,
    channels,
    subscriptions,
    userGroups,
    readStates,
    receivers,
    users,
  });
  return {
    // the work first, then the collaborators it uses
    stop: async () => {
      await mailers.stop();
      await delivery.stop();
      await exportQueue.stop();
      await draftsCleanup.stop();
      await linkPreviewFetching.stop();
      await collaborators.stop();
    },
  };
}

/** The first half of the registrations: channels, subscriptions, messages, their flags and topics. */
function registerChannelAndMessageOperations(
  server: BusServer,
  { db, events }: { db: Connection; events: EventPublisher<"messaging"> },
  collaborators: Collaborators,
  { linkPreviewsAllowed, timeBudgetSeconds }: { linkPreviewsAllowed: boolean; timeBudgetSeconds: number },
): void {
  const { search, messages, userMessages, conversations, channels, subscriptions, userGroups } = collaborators;
  const { readStates, channelMessages, history, receivers, personal, topics, userTopics, users } = collaborators;
  const { alertWords, mutedUsers, sendReceipts, settings, linkifiers, realmEmoji, attachments } = collaborators;
  const { notificationCandidates } = collaborators;
  registerChannelOperations(server, {
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
    notificationCandidates,
    alertWords,
    mutedUsers,
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    events,
  });
  registerMessageOperations(server, {
    db,
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
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    attachments,
    events,
    timeBudgetSeconds,
  });
}

/** The rest: alert words, muted users, uploads, user lists, notification facts, export, import, register. */
function registerUserAndOrganizationOperations(
  server: BusServer,
  { bus, events }: { bus: BusClient; events: EventPublisher<"messaging"> },
  collaborators: Collaborators,
  { linkPreviewsAllowed }: { linkPreviewsAllowed: boolean },
): void {
  const { search, messages, userMessages, conversations, channels, subscriptions, userGroups } = collaborators;
  const { readStates, channelMessages, receivers, personal, topics, userTopics, users, alertWords } = collaborators;
  const { mutedUsers, drafts, draftLists, scheduledMessages, scheduledLists, reminderLists } = collaborators;
  const { savedSnippets, snippetLists, settings, linkifiers, realmEmoji, attachments, files } = collaborators;
  const { uploadTokens, exports, exportQueue } = collaborators;
  registerAlertWordOperations(server, { alertWords, events });
  registerMutedUserOperations(server, {
    messages,
    userMessages,
    readStates,
    channelMessages,
    personal,
    users,
    mutedUsers,
    events,
  });
  registerUploadOperations(server, {
    messages,
    channels,
    subscriptions,
    userGroups,
    receivers,
    attachments,
    files,
    uploadTokens,
    exports,
    events,
  });
  registerUserListOperations(server, {
    messages,
    conversations,
    channels,
    subscriptions,
    userGroups,
    receivers,
    users,
    drafts,
    scheduledMessages,
    savedSnippets,
    settings,
    linkifiers,
    realmEmoji,
    linkPreviewsAllowed,
    events,
  });
  registerNotificationFactOperations(server, {
    messages,
    userMessages,
    subscriptions,
    readStates,
    userTopics,
    mutedUsers,
  });
  registerRealmExportImportOperations(server, {
    bus,
    messages,
    userMessages,
    conversations,
    channels,
    subscriptions,
    readStates,
    topics,
    users,
    attachments,
    files,
    exports,
    exportQueue,
    events,
  });
  registerStateOperation(server, {
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
  });
}
