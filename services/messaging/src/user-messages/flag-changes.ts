import {
  badRequest,
  messagingEvents,
  USER_MESSAGE_FLAGS,
  type Actor,
  type HandlerContext,
  type PayloadOf,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { UserMessageRepository } from "./user-message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import { canSeeMessage } from "../messages/message-access";
import { topicVisibilityOf } from "../user-topics/topic-visibility";
import { isMention } from "./flags";
import type { PersonalIndex, PersonalState } from "./personal-index";
import { allRead, withStates, type ChannelMessageRef, type ChannelReadState } from "./read-state";
import { asStored, type ReadStateRepository, type StoredReadState } from "./read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import type { ReceiverCache } from "./receiver-cache";

/** The flags of Zulip's UserMessage that the API knows (all but is_private and active_mobile_push_notification). */
const API_FLAGS: readonly string[] = USER_MESSAGE_FLAGS.filter(
  (f) => f !== "is_private" && f !== "active_mobile_push_notification",
);
/** The ones a user sets and clears; the others are bookkeeping (Zulip's NON_EDITABLE_FLAGS). */
const EDITABLE_FLAGS = ["read", "starred", "collapsed"];
/** Zulip's DEFAULT_HISTORICAL_FLAGS: how a message the user never received counts. */
export const HISTORICAL_FLAGS = ["read", "historical"];

export type FlagOp = "add" | "remove";
type FlagsEvent = PayloadOf<typeof messagingEvents.messageFlagsUpdated>["event"];

/** Zulip's checks, in its order: a known flag, an editable one, then the operation. */
export function checkFlagChange(op: string, flag: string): FlagOp {
  if (!API_FLAGS.includes(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (!EDITABLE_FLAGS.includes(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== "add" && op !== "remove") throw badRequest(`Invalid message flag operation: '${op}'`);
  return op;
}

const mentioned = (yes: boolean) => (yes ? { mentioned: true as const } : {});

/**
 * Publishes the user's update_message_flags event (their clients and every
 * messaging instance hear it); marking unread names the messages among them
 * that mention their whole channel.
 */
export function publishFlagsEvent(
  deps: { events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  event: Omit<FlagsEvent, "type" | "operation">,
  readStates: ReadStates = {},
  streamWildcardIds: number[] = [],
): void {
  deps.events.publish(
    messagingEvents.messageFlagsUpdated,
    {
      realmId,
      userIds: [userId],
      event: { type: "update_message_flags", operation: event.op, ...event },
      ...(Object.keys(readStates).length > 0 && { readStates }),
      ...(streamWildcardIds.length > 0 && { streamWildcardIds }),
    },
    ctx.requestId,
  );
}

/** What changing flags uses: the messages, the user's rows and read states, their access, and the flags event. */
interface FlagChangeDeps extends ReadMarkingDeps {
  messages: MessageRepository;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  receivers: ReceiverCache;
  channels: ChannelDirectory;
  userTopics: UserTopicIndex;
}

/**
 * Zulip's do_update_message_flags. Marking unread skips messages of channels
 * the user is not subscribed to (unread messages are only ever in subscribed
 * channels) and names those channels. Messages already as asked are left
 * alone. A message the user never received may be changed only if they may
 * see it (shared channel history); one they may not see is "Invalid
 * message(s)". Read and unread of a channel message go to the user's read
 * state in the channel; starred and collapsed to a row of the message, made
 * when it gets its first such flag. Returns the messages changed and the
 * channels skipped.
 */
export async function changeFlags(
  deps: FlagChangeDeps,
  ctx: HandlerContext,
  realmId: number,
  actor: Actor,
  op: FlagOp,
  flag: string,
  messageIds: number[],
): Promise<{ changed: number[]; ignoredChannels: number[] }> {
  let ids = [...new Set(messageIds)];
  if (flag === "read" && op === "add") {
    return { changed: await markReadFor(deps, ctx, realmId, actor.userId, ids), ignoredChannels: [] };
  }
  const adding = op === "add";
  const markingUnread = flag === "read" && !adding;
  const messages = new Map((await deps.messages.summaries(realmId, ids)).map((m) => [m.messageId, m]));
  let ignoredChannels: number[] = [];
  if (markingUnread) {
    const subscribed = await deps.subscriptions.subscribedStreamIds(realmId, actor.userId);
    const unsubscribedChannel = (id: number) => {
      const streamId = messages.get(id)?.streamId;
      return streamId !== undefined && streamId !== null && !subscribed.has(streamId) ? streamId : null;
    };
    ignoredChannels = [...new Set(ids.map(unsubscribedChannel).filter((s) => s !== null))].sort((a, b) => a - b);
    ids = ids.filter((id) => unsubscribedChannel(id) === null);
  }

  const view = await deps.personal.of(realmId, actor.userId);
  const flagsOf = (id: number) => {
    const m = messages.get(id);
    return m ? view.of(m) : HISTORICAL_FLAGS;
  };
  const changed = ids.filter((id) => flagsOf(id).includes(flag) !== adding);
  const notReceived = changed.filter((id) => {
    const m = messages.get(id);
    return !m || !view.hasReceived(m);
  });
  if (notReceived.length) {
    const visible = await Promise.all(
      notReceived.map((id) => {
        const m = messages.get(id);
        return m ? canSeeMessage(deps, realmId, actor, m, ctx) : false;
      }),
    );
    if (visible.includes(false)) throw badRequest("Invalid message(s)");
  }
  const direct = changed.filter((id) => messages.get(id)!.streamId === null);
  let readStates: ReadStates = {};
  if (markingUnread) {
    await deps.userMessages.setFlag(realmId, actor.userId, direct, "read", false);
    const byChannel = groupBy(
      changed.filter((id) => messages.get(id)!.streamId !== null),
      (id) => messages.get(id)!.streamId!,
    );
    readStates = await changeReadStates(deps, realmId, actor.userId, view.state, byChannel, (streamId, id) => ({
      message: view.refOf(streamId, id, messages.get(id)!.senderId),
      unread: true,
    }));
  } else {
    // a channel message's first stored flag makes its row ("read" in it: the read state is not the row's)
    const rowless = changed.filter((id) => !direct.includes(id) && view.storedOf(id).length === 0);
    await deps.userMessages.addHistorical(
      realmId,
      actor.userId,
      rowless.map((messageId) => ({ messageId, flags: ["read"] })),
    );
    await deps.userMessages.setFlag(realmId, actor.userId, changed, flag, adding);
  }

  // Zulip's format_unread_message_details: whether each channel message counts (unmuted_stream_msg), and
  // mentions as unread_msgs counts them (a wildcard mention in a muted topic or channel does not)
  const visibility = markingUnread ? await topicVisibilityOf(deps, realmId, actor.userId) : null;
  const details = (id: number): messagingEvents.UnreadMessageDetails => {
    const m = messages.get(id)!;
    const flags = view.of(m);
    if (m.type === "private") {
      return {
        type: "private",
        user_ids: m.receivers.filter((u) => u !== actor.userId),
        ...mentioned(isMention(flags)),
      };
    }
    const unmuted = !visibility!.isMuted(m.streamId!, m.topic);
    const counted = flags.includes("mentioned") || (unmuted && isMention(flags));
    return {
      type: "stream",
      stream_id: m.streamId!,
      topic: m.topic,
      unmuted_stream_msg: unmuted,
      ...mentioned(counted),
    };
  };
  publishFlagsEvent(
    deps,
    ctx,
    realmId,
    actor.userId,
    {
      op,
      flag,
      messages: changed,
      all: false,
      ...(markingUnread && { message_details: Object.fromEntries(changed.map((id) => [id, details(id)])) }),
    },
    readStates,
    markingUnread ? changed.filter((id) => messages.get(id)!.streamWildcard) : [],
  );
  return { changed, ignoredChannels };
}

/** Read states stored by a change, by channel id, as the flags event carries them. */
export type ReadStates = Record<string, StoredReadState>;

const groupBy = <K>(ids: number[], key: (id: number) => K): Map<K, number[]> => {
  const groups = new Map<K, number[]>();
  for (const id of ids) (groups.get(key(id)) ?? groups.set(key(id), []).get(key(id))!).push(id);
  return groups;
};

/** Stores the user's read state of each channel with these messages changed (read-state.ts's withStates). */
async function changeReadStates(
  deps: { readStates: ReadStateRepository; channelMessages: ChannelMessageCache; personal: PersonalIndex },
  realmId: number,
  userId: number,
  /**
   * the user's read states as their personal state holds them: how far back each channel's messages
   * are needed, and the state to try first (ReadStateRepository.change)
   */
  known: PersonalState,
  byChannel: Map<number, number[]>,
  change: (streamId: number, id: number) => { message: ChannelMessageRef; unread: boolean },
): Promise<ReadStates> {
  const stored: ReadStates = {};
  for (const [streamId, ids] of byChannel) {
    const channel = await deps.channelMessages.of(realmId, streamId, known.channels.get(streamId)?.watermark ?? 0);
    const changes = ids.map((id) => change(streamId, id));
    stored[streamId] = await storeReadState(deps, realmId, userId, known, streamId, (s) =>
      withStates(s, userId, changes, channel.allAbove(s.watermark)),
    );
  }
  return stored;
}

/**
 * Writes a change of the user's read state in a channel, tried first on the version their personal
 * state holds (no read when it is current), and has the personal state take what was stored.
 */
async function storeReadState(
  deps: { readStates: ReadStateRepository; personal: PersonalIndex },
  realmId: number,
  userId: number,
  known: PersonalState,
  streamId: number,
  change: (state: ChannelReadState) => ChannelReadState,
): Promise<StoredReadState> {
  const written = await deps.readStates.change(realmId, userId, streamId, change, known.versionedState(streamId));
  deps.personal.noteStored(realmId, userId, written);
  return asStored(written);
}

/** Marks every message of a channel read for the user: their read state becomes a bare watermark at its newest message. */
export async function storeChannelRead(
  deps: { readStates: ReadStateRepository; channelMessages: ChannelMessageCache; personal: PersonalIndex },
  realmId: number,
  userId: number,
  known: PersonalState,
  streamId: number,
): Promise<StoredReadState> {
  const channel = await deps.channelMessages.of(realmId, streamId, known.channels.get(streamId)?.watermark ?? 0);
  const newest = channel.ids[channel.ids.length - 1] ?? 0;
  return storeReadState(deps, realmId, userId, known, streamId, (s) => allRead(s, newest));
}

/** What marking messages read uses: the user's rows and read states, their unread messages, and the flags event. */
interface ReadMarkingDeps {
  userMessages: UserMessageRepository;
  readStates: ReadStateRepository;
  channelMessages: ChannelMessageCache;
  personal: PersonalIndex;
  events: EventPublisher<"messaging">;
}

/** Marks these messages read for the user and tells their clients (and every instance's PersonalIndex); the ids changed. */
export async function markReadFor(
  deps: ReadMarkingDeps & { messages: MessageRepository },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  ids: number[],
): Promise<number[]> {
  const { changed, readStates } = await markRead(deps, realmId, userId, ids);
  publishFlagsEvent(deps, ctx, realmId, userId, { op: "add", flag: "read", messages: changed, all: false }, readStates);
  return changed;
}

/**
 * Marking read, what every client does with what it shows: the user's
 * personal state (kept current by every flag event) tells which messages are
 * unread, so it costs a write per channel and one for direct messages; only
 * ids older than a truncated unread list (beyond MAX_UNREAD_MESSAGES) are
 * looked up. A message never received counts as read already.
 */
async function markRead(
  deps: ReadMarkingDeps & { messages: MessageRepository },
  realmId: number,
  userId: number,
  ids: number[],
): Promise<{ changed: number[]; readStates: ReadStates }> {
  const view = await deps.personal.of(realmId, userId);
  const { unread } = view;
  const oldestKnown = unread.ids[0] ?? Infinity;
  const unknown = unread.olderMissing ? ids.filter((id) => !unread.has(id) && id < oldestKnown) : [];
  const older = new Map(
    (unknown.length ? await deps.messages.summaries(realmId, unknown) : [])
      .filter((m) => !view.of(m).includes("read"))
      .map((m) => [m.messageId, m]),
  );
  const changed = ids.filter((id) => unread.has(id) || older.has(id));
  const channelOf = (id: number) => (unread.has(id) ? unread.get(id)!.streamId : older.get(id)!.streamId);
  const direct = changed.filter((id) => channelOf(id) === null);
  const plain = direct.filter((id) => view.storedOf(id).length === 0);
  if ((await deps.userMessages.markPlainRead(realmId, userId, plain)) < plain.length) {
    // a flag arrived meanwhile on some of them: the general update, which is idempotent
    await deps.userMessages.setFlag(realmId, userId, plain, "read", true);
  }
  const plainSet = new Set(plain);
  await deps.userMessages.setFlag(
    realmId,
    userId,
    direct.filter((id) => !plainSet.has(id)),
    "read",
    true,
  );
  const byChannel = groupBy(
    changed.filter((id) => channelOf(id) !== null),
    (id) => channelOf(id)!,
  );
  const readStates = await changeReadStates(deps, realmId, userId, view.state, byChannel, (streamId, id) => ({
    message: view.refOf(streamId, id, older.get(id)?.senderId),
    unread: false,
  }));
  return { changed, readStates };
}

/**
 * The user's unread messages of a channel (or one of its topics) marked read:
 * the unread messages are the user's personal state's, as register's
 * unread_msgs counts them. A whole channel leaves its read state a bare
 * watermark at the channel's newest message.
 */
export async function markChannelRead(
  deps: ReadMarkingDeps & { messages: MessageRepository },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  streamId: number,
  topicKey: string | null,
): Promise<void> {
  const view = await deps.personal.of(realmId, userId);
  const ids = view.unread
    .messages()
    .filter((m) => m.streamId === streamId && (topicKey === null || m.topicKey === topicKey))
    .map((m) => m.id);
  if (topicKey !== null) {
    if (ids.length) await markReadFor(deps, ctx, realmId, userId, ids);
    return;
  }
  const stored = await storeChannelRead(deps, realmId, userId, view.state, streamId);
  if (ids.length) {
    publishFlagsEvent(
      deps,
      ctx,
      realmId,
      userId,
      { op: "add", flag: "read", messages: ids, all: false },
      { [streamId]: stored },
    );
  }
}
