import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import {
  badRequest,
  requireUser,
  type Handler,
  type messaging,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { MessageRepository } from "../messages/message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { PersonalIndex } from "../user-messages/personal-index";
import { markChannelRead, publishFlagsEvent, storeChannelRead, type ReadStates } from "../user-messages/flag-changes";

/** Zulip marks all as read 2,000 rows at a time. */
const MARK_ALL_BATCH = 2000;
/**
 * How long one POST /mark_all_as_read works before answering complete=false
 * (the client calls again): well within the bus timeout, as Zulip stays within
 * its request timeout.
 */
const MARK_ALL_BUDGET_MS = 5000;

/**
 * POST /mark_all_as_read (Zulip's do_mark_all_as_read): every channel's read
 * state becomes a bare watermark at the channel's newest message, and direct
 * messages are marked in batches until none is left or the budget is spent;
 * the update_message_flags event with all=true (clients reload their unread
 * counts) only once every message is read.
 */
export const markAllAsReadHandler =
  (deps: {
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    personal: PersonalIndex;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.markAllAsRead> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const deadline = Date.now() + MARK_ALL_BUDGET_MS;
    for (;;) {
      if (Date.now() >= deadline) return { complete: false };
      const ids = await deps.userMessages.unreadIds(realm.id, actor.userId, MARK_ALL_BATCH);
      await deps.userMessages.setFlag(realm.id, actor.userId, ids, "read", true);
      if (ids.length < MARK_ALL_BATCH) break;
    }
    const { state } = await deps.personal.of(realm.id, actor.userId);
    const readStates: ReadStates = {};
    for (const streamId of state.channels.keys()) {
      readStates[streamId] = await storeChannelRead(deps, realm.id, actor.userId, state, streamId);
    }
    publishFlagsEvent(
      deps,
      ctx,
      realm.id,
      actor.userId,
      { op: "add", flag: "read", messages: [], all: true },
      readStates,
    );
    return { complete: true };
  };

/** What marking a channel's messages read uses: the access to the channel, the user's unread messages, the flags event. */
interface ChannelReadDeps {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  readStates: ReadStateRepository;
  channelMessages: ChannelMessageCache;
  personal: PersonalIndex;
  events: EventPublisher<"messaging">;
}

/**
 * POST /mark_stream_as_read: a channel the user may read (Zulip's access_stream_by_id,
 * which requires content access: an administrator not subscribed to a private
 * channel is answered "Invalid channel ID").
 */
export const markStreamAsReadHandler =
  (deps: ChannelReadDeps): Handler<typeof messaging.markStreamAsRead> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await accessChannelById(deps, realm.id, actor, p.stream_id, ctx, "content");
    await markChannelRead(deps, ctx, realm.id, actor.userId, p.stream_id, null);
    return {};
  };

/**
 * POST /mark_topic_as_read: a channel the user may read, as mark_stream_as_read;
 * "No such topic" unless the user received a message in it (Zulip's check).
 */
export const markTopicAsReadHandler =
  (deps: ChannelReadDeps & { messages: MessageRepository }): Handler<typeof messaging.markTopicAsRead> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await accessChannelById(deps, realm.id, actor, p.stream_id, ctx, "content");
    const topicKey = p.topic_name.toLowerCase();
    if (p.topic_name) {
      const [received] = await deps.messages.walk(
        realm.id,
        [
          { kind: "channel", streamId: p.stream_id },
          { kind: "topic", key: topicKey },
          { kind: "receivers", userId: actor.userId, ...(await deps.personal.of(realm.id, actor.userId)).withRows },
        ],
        Infinity,
        -1,
        1,
      );
      if (!received) throw badRequest(`No such topic '${p.topic_name}'`);
    }
    await markChannelRead(deps, ctx, realm.id, actor.userId, p.stream_id, topicKey);
    return {};
  };
