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
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import { changeFlags, checkFlagChange } from "../user-messages/flag-changes";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/** POST /messages/flags: the named messages, as Zulip answers (the ids asked for, whatever changed). */
export const updateMessageFlagsHandler =
  (deps: {
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    subscriptions: SubscriptionDirectory;
    channels: ChannelDirectory;
    events: EventPublisher<"messaging">;
    personal: PersonalIndex;
    userTopics: UserTopicIndex;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  }): Handler<typeof messaging.updateMessageFlags> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const op = checkFlagChange(p.op, p.flag);
    const { ignoredChannels } = await changeFlags(deps, ctx, realm.id, actor, op, p.flag, p.messages);
    return {
      messages: p.messages,
      ...(p.flag === "read" && op === "remove" && { ignored_because_not_subscribed_channels: ignoredChannels }),
    };
  };
