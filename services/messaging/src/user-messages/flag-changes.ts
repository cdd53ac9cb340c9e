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
import type { PersonalIndex } from "./personal-index";

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

/** Publishes the user's update_message_flags event (their clients and every messaging instance hear it). */
export function publishFlagsEvent(
  deps: { events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  event: Omit<FlagsEvent, "type" | "operation">,
): void {
  deps.events.publish(
    messagingEvents.messageFlagsUpdated,
    { realmId, userIds: [userId], event: { type: "update_message_flags", operation: event.op, ...event } },
    ctx.requestId,
  );
}

/**
 * Zulip's do_update_message_flags. Marking unread skips messages of channels
 * the user is not subscribed to (unread messages are only ever in subscribed
 * channels) and names those channels. Messages already as asked are left
 * alone. A message the user never received but may see (shared channel
 * history) gets a "historical" row when the change makes it differ from how
 * such a message counts (read); one they may not see is "Invalid message(s)".
 * Returns the messages changed and the channels skipped.
 */
export async function changeFlags(
  deps: {
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    channels: ChannelDirectory;
    events: EventPublisher<"messaging">;
    personal: PersonalIndex;
    userTopics: UserTopicIndex;
  },
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

  const rows = await deps.userMessages.flagsOf(realmId, actor.userId, ids);
  const changed = ids.filter((id) => (rows.get(id) ?? HISTORICAL_FLAGS).includes(flag) !== adding);
  const historical = changed.filter((id) => !rows.has(id));
  if (historical.length) {
    const visible = await Promise.all(
      historical.map((id) => {
        const m = messages.get(id);
        return m ? canSeeMessage(deps, realmId, actor, m, ctx) : false;
      }),
    );
    if (visible.includes(false)) throw badRequest("Invalid message(s)");
    const flags = adding ? [...HISTORICAL_FLAGS, flag] : HISTORICAL_FLAGS.filter((f) => f !== flag);
    await deps.userMessages.addHistorical(
      realmId,
      actor.userId,
      historical.map((messageId) => ({ messageId, flags })),
    );
  }
  await deps.userMessages.setFlag(
    realmId,
    actor.userId,
    changed.filter((id) => rows.has(id)),
    flag,
    adding,
  );

  // Zulip's format_unread_message_details: whether each channel message counts (unmuted_stream_msg), and
  // mentions as unread_msgs counts them (a wildcard mention in a muted topic or channel does not)
  const visibility = markingUnread ? await topicVisibilityOf(deps, realmId, actor.userId) : null;
  const details = (id: number): messagingEvents.UnreadMessageDetails => {
    const m = messages.get(id)!;
    const flags = rows.get(id) ?? [];
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
  publishFlagsEvent(deps, ctx, realmId, actor.userId, {
    op,
    flag,
    messages: changed,
    all: false,
    ...(markingUnread && { message_details: Object.fromEntries(changed.map((id) => [id, details(id)])) }),
  });
  return { changed, ignoredChannels };
}

/** What marking messages read uses: the user's rows, their unread messages, and the flags event. */
interface ReadMarkingDeps {
  userMessages: UserMessageRepository;
  personal: PersonalIndex;
  events: EventPublisher<"messaging">;
}

/** Marks these messages read for the user and tells their clients (and every instance's PersonalIndex); the ids changed. */
export async function markReadFor(
  deps: ReadMarkingDeps,
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  ids: number[],
): Promise<number[]> {
  const changed = await markRead(deps, realmId, userId, ids);
  publishFlagsEvent(deps, ctx, realmId, userId, { op: "add", flag: "read", messages: changed, all: false });
  return changed;
}

/**
 * Marking read, what every client does with what it shows: the user's
 * personal state (kept current by every flag event) tells which messages are
 * unread and which have other flags, so it costs one write, no read; only ids
 * older than a truncated unread set (beyond MAX_UNREAD_MESSAGES) are looked up.
 * A message never received counts as read already. Returns the ids changed.
 */
async function markRead(
  deps: { userMessages: UserMessageRepository; personal: PersonalIndex },
  realmId: number,
  userId: number,
  ids: number[],
): Promise<number[]> {
  const state = await deps.personal.of(realmId, userId);
  const { unread } = state;
  const oldestKnown = unread.ids[0] ?? Infinity;
  const unknown = unread.olderMissing ? ids.filter((id) => !unread.has(id) && id < oldestKnown) : [];
  const rows = unknown.length ? await deps.userMessages.flagsOf(realmId, userId, unknown) : new Map<number, string[]>();
  const changed = ids.filter((id) => unread.has(id) || (rows.has(id) && !rows.get(id)!.includes("read")));
  const plain = changed.filter((id) => unread.has(id) && state.storedOf(id).length === 0);
  if ((await deps.userMessages.markPlainRead(realmId, userId, plain)) < plain.length) {
    // a flag arrived meanwhile on some of them: the general update, which is idempotent
    await deps.userMessages.setFlag(realmId, userId, plain, "read", true);
  }
  const plainSet = new Set(plain);
  const rest = changed.filter((id) => !plainSet.has(id));
  await deps.userMessages.setFlag(realmId, userId, rest, "read", true);
  return changed;
}

/**
 * The user's unread messages of a channel (or one of its topics) marked read:
 * the unread messages are the user's personal state's, as register's
 * unread_msgs counts them.
 */
export async function markChannelRead(
  deps: ReadMarkingDeps,
  ctx: HandlerContext,
  realmId: number,
  userId: number,
  streamId: number,
  topicKey: string | null,
): Promise<void> {
  const { unread } = await deps.personal.of(realmId, userId);
  const ids = unread
    .messages()
    .filter((m) => m.streamId === streamId && (topicKey === null || m.topicKey === topicKey))
    .map((m) => m.id);
  if (ids.length) await markReadFor(deps, ctx, realmId, userId, ids);
}
