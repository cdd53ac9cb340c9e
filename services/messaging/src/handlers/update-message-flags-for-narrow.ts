import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import {
  requireUser,
  type Handler,
  type messaging,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { MessageHistory } from "../messages/message-history";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { UserDirectory } from "../users/user-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { checkAnchorExclusion, messageRange, parseAnchor, resolveNarrow } from "../messages/message-range";
import { changeFlags, checkFlagChange } from "../user-messages/flag-changes";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/** Zulip's MAX_MESSAGES_PER_UPDATE: one call's range is lowered to at most this many messages. */
const MAX_MESSAGES_PER_UPDATE = 5000;

/**
 * POST /messages/flags/narrow (Zulip's update_message_flags_for_narrow): the
 * messages GET /messages would answer for the same range, then the flag change
 * of POST /messages/flags on them. The counts are lowered as Zulip does so that
 * one call stays bounded; the client goes on from last_processed_id.
 */
export const updateMessageFlagsForNarrowHandler =
  (deps: {
    messages: MessageRepository;
    history: MessageHistory;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    personal: PersonalIndex;
    userTopics: UserTopicIndex;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    conversations: ConversationRepository;
    users: UserDirectory;
    settings: RealmSettingsSource;
    events: EventPublisher<"messaging">;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  }): Handler<typeof messaging.updateMessageFlagsForNarrow> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const anchor = parseAnchor(p.anchor);
    checkAnchorExclusion(p.num_before, p.num_after, p.include_anchor);
    const op = checkFlagChange(p.op, p.flag);
    const numBefore = Math.min(
      p.num_before,
      Math.max(MAX_MESSAGES_PER_UPDATE - p.num_after, MAX_MESSAGES_PER_UPDATE / 2),
    );
    const numAfter = Math.min(p.num_after, MAX_MESSAGES_PER_UPDATE - numBefore);
    const narrow = await resolveNarrow(deps, ctx, realm, actor, p.narrow);
    const range = await messageRange(deps, realm.id, narrow, {
      anchor,
      numBefore,
      numAfter,
      includeAnchor: p.include_anchor,
    });
    const ids = range.rows.map((m) => m.messageId);
    const { changed, ignoredChannels } = await changeFlags(deps, ctx, realm.id, actor, op, p.flag, ids);
    return {
      processed_count: ids.length,
      updated_count: changed.length,
      first_processed_id: ids[0] ?? null,
      last_processed_id: ids[ids.length - 1] ?? null,
      found_oldest: range.found_oldest,
      found_newest: range.found_newest,
      ...(p.flag === "read" && op === "remove" && { ignored_because_not_subscribed_channels: ignoredChannels }),
    };
  };
