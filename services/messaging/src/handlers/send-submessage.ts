import {
  badRequest,
  requireUser,
  type EventPublisher,
  type Handler,
  type messaging,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import { accessMessage } from "../messages/message-access";
import type { MessageRepository } from "../messages/message.repository";
import type { StoredSubmessage } from "../messages/message.schema";
import { publishSubmessage } from "../messages/message-submessages";
import { checkWidgetEvent, widgetTypeOf } from "../messages/widgets";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * POST /submessage (Zulip's process_submessage and do_add_submessage): anyone
 * who may read the message attaches a submessage, once its sender has attached
 * the first; a change to a poll or a todo list is checked by the widget's
 * rules. The message's recipients get the submessage event.
 */
export const sendSubmessageHandler =
  (deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.sendSubmessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const message = await accessMessage(deps, realm.id, actor, p.message_id, ctx);
    const submessages = message.submessages ?? [];
    const isWidgetAuthor = message.senderId === actor.userId;
    // Zulip's verify_submessage_sender; submessages are never removed, so what this read found still holds
    if (!isWidgetAuthor && !submessages.some((s) => s.senderId === message.senderId)) {
      throw badRequest("You cannot attach a submessage to this message.");
    }
    let data: unknown;
    try {
      data = JSON.parse(p.content);
    } catch {
      throw badRequest("Invalid json for submessage");
    }
    checkWidgetEvent(widgetTypeOf(submessages), data, isWidgetAuthor);
    const submessage: StoredSubmessage = {
      id: await deps.messages.nextSubmessageId(),
      senderId: actor.userId,
      msgType: p.msg_type,
      content: p.content,
    };
    // a message deleted meanwhile, as Zulip's access_message would have found it
    if (!(await deps.messages.addSubmessage(realm.id, message.messageId, submessage))) {
      throw badRequest("Invalid message(s)");
    }
    await publishSubmessage(deps, ctx, realm.id, message, submessage);
    return {};
  };
