import {
  badRequest,
  messaging,
  messagingEvents,
  requireUser,
  type Actor,
  type Handler,
  type HandlerContext,
  type ParamsOf,
} from "@teamchat/shared";
import { accessChannelForSend } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import { conversationKey } from "../conversations/conversation.repository";
import type { Deps } from "../deps";
import { mentionFlags } from "../messages/mentions";
import { normalizeContent, normalizeTopic } from "../messages/message-content";
import { inFlagOrder } from "../user-messages/personal-index";
import { loadViewContext, messageView } from "../messages/message-view";
import type { MessageDoc } from "../messages/message.schema";
import { mentionTargets, renderMarkdown } from "../render/markdown";
import type { UserSummary } from "../users/user-directory";

type Params = ParamsOf<typeof messaging.sendMessage>;

/** A channel's `to`: its id, its name, or a one-element list of either. */
function channelTarget(to: Params["to"]): string | number {
  const target = Array.isArray(to) && to.length === 1 ? to[0]! : to;
  if (Array.isArray(target)) throw badRequest("Invalid channel name");
  return target;
}

/** Direct-message recipients: user ids or emails, as a list, one value, or comma-separated addresses. */
async function directRecipients(
  deps: Deps<"users">,
  ctx: HandlerContext,
  realmId: number,
  actor: Actor,
  to: Params["to"],
) {
  const list = Array.isArray(to) ? to : typeof to === "number" ? [to] : to.split(",").map((s) => s.trim());
  const wanted = list.filter((v) => v !== "");
  if (!wanted.length) throw badRequest("Message must have recipients");
  const ids = wanted.filter((v): v is number => typeof v === "number");
  const emails = wanted.filter((v): v is string => typeof v === "string");
  const [byId, byEmail] = await Promise.all([
    deps.users.byIds(ctx, realmId, ids),
    emails.length ? deps.users.byEmails(ctx, realmId, emails) : new Map<string, UserSummary>(),
  ]);
  const missingId = ids.find((id) => !byId.has(id));
  if (missingId !== undefined) throw badRequest(`Invalid user ID ${missingId}`);
  const missingEmail = emails.find((e) => !byEmail.has(e));
  if (missingEmail !== undefined) throw badRequest(`Invalid email '${missingEmail}'`);
  const users = [...byId.values(), ...byEmail.values()];
  const inactive = users.find((u) => !u.is_active);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using Zulip.`);
  return [...new Set([actor.userId, ...users.map((u) => u.user_id)])].sort((a, b) => a - b);
}

/** POST /messages: a channel or direct message; each recipient gets a message event with their flags. */
export const sendMessageHandler =
  (
    deps: Deps<
      | "channels"
      | "subscriptions"
      | "userGroups"
      | "messages"
      | "userMessages"
      | "conversations"
      | "topics"
      | "users"
      | "events"
      | "settings"
    >,
  ): Handler<typeof messaging.sendMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const settings = await deps.settings.get(ctx);
    const content = normalizeContent(p.content, settings);

    let target: Pick<MessageDoc, "type" | "recipientId" | "streamId" | "topic" | "topicKey" | "receivers">;
    let channel: ChannelDoc | undefined;
    if (p.type === "stream" || p.type === "channel") {
      channel = await accessChannelForSend(deps, realm.id, actor, channelTarget(p.to), ctx);
      const given = p.topic ?? p.subject;
      if (given === undefined) throw badRequest("Missing topic");
      const topic = normalizeTopic(given, settings, channel);
      const receivers = await deps.subscriptions.subscriberIds(realm.id, channel.streamId);
      target = {
        type: "stream",
        recipientId: channel.recipientId,
        streamId: channel.streamId,
        topic,
        topicKey: topic.toLowerCase(),
        // ascending already; a copy, as the list is the directory's own
        receivers: [...receivers],
      };
    } else {
      const participants = await directRecipients(deps, ctx, realm.id, actor, p.to);
      const conversation = await deps.conversations.ensure(realm.id, participants);
      target = {
        type: "private",
        recipientId: conversation.recipientId,
        streamId: null,
        topic: "",
        topicKey: "",
        receivers: participants,
      };
    }

    const message = await deps.messages.insert({
      realmId: realm.id,
      senderId: actor.userId,
      ...target,
      content,
      renderedContent: renderMarkdown(content, mentionTargets(await deps.users.all(ctx, realm.id))),
      timestamp: Math.floor(Date.now() / 1000),
      // sends that come through the bus from another service, not from an HTTP client, are Zulip's "Internal"
      client: ctx.client ?? "Internal",
    });
    await Promise.all([
      channel
        ? deps.topics.noteMessage(realm.id, channel.streamId, message.topic, message.messageId)
        : deps.conversations.noteMessage(realm.id, conversationKey(message.receivers), message.messageId),
      channel && channel.firstMessageId === null
        ? deps.channels.setFirstMessage(realm.id, channel.streamId, message.messageId)
        : undefined,
    ]);

    const vc = await loadViewContext(deps, ctx, realm, settings, [message], {
      applyMarkdown: true,
      clientGravatar: false,
      allowEmptyTopicName: true,
    });
    const recipients = [...(await deps.users.byIds(ctx, realm.id, message.receivers)).values()];
    const mentions = mentionFlags(content, recipients);
    const flagsOf = (userId: number): string[] =>
      inFlagOrder([
        ...(userId === actor.userId && p.read_by_sender !== false ? ["read"] : []),
        ...(mentions.get(userId) ?? []),
      ]);
    await deps.userMessages.deliver(
      realm.id,
      message.messageId,
      message.receivers.map((userId) => ({ userId, flags: flagsOf(userId) })),
    );
    deps.events.publish(
      messagingEvents.messageSent,
      {
        realmId: realm.id,
        userIds: message.receivers,
        message: messageView(message, vc),
        markdown: message.content,
        flags: Object.fromEntries(message.receivers.map((id) => [id, flagsOf(id)])),
      },
      ctx.requestId,
    );
    return { id: message.messageId };
  };
