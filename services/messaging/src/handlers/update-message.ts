import type { MessageDoc } from "../messages/message.schema";
import { inIntervals, isUnread, withStates } from "../user-messages/read-state";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import { flagsOfUsers } from "../user-messages/message-flags";
import {
  Role,
  badRequest,
  messagingEvents,
  requireUser,
  withTransaction,
  type Handler,
  type HandlerContext,
  type PayloadOf,
  type messaging,
  topicLinks,
} from "@teamchat/shared";
import { updateAttachmentLinks, type LinkDeps } from "../attachments/attachment-links";
import { checkGroupMentions, renderMessage, type RenderDeps } from "../render/message-rendering";
import { requestLinkPreviews } from "../link-previews/link-preview-request";
import { accessChannelById } from "../channels/channel-access";
import { refreshFirstMessage } from "../channels/first-message";
import {
  RESOLVED_TOPIC_PREFIX,
  checkEdit,
  decideMove,
  movedMessages,
  movesOtherMessages,
  type MoveDecision,
} from "../messages/edit-policy";
import { idSet, messageAudience } from "../messages/message-audience";
import { mentionFlags, topicParticipants } from "../messages/mentions";
import { loadViewContext, messageView } from "../messages/message-view";
import { isMention, withoutChannelWildcard } from "../user-messages/flags";
import { accessMessage } from "../messages/message-access";
import type { MessageRepository } from "../messages/message.repository";
import { sendMoveNotices, type MoveNoticeDeps } from "../messages/move-notices";
import { contentChange, planMove, type MovePlan } from "../messages/move-plan";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserDirectory } from "../users/user-directory";
import { receivedWith, type ReceiverCache } from "../user-messages/receiver-cache";

type UpdateMessageEvent = PayloadOf<typeof messagingEvents.messageUpdated>["event"];

/** Who a move to another channel takes the messages from and gives them to (receiverChange). */
interface ReceiverChange {
  losing: number[];
  /** the messages' receivers after the move: messages with the same list together */
  stored: Array<{ ids: number[]; receivers: number[] }>;
  /** the messages that mention their old channel (MessageDoc.streamWildcard), and who keeps that mention */
  keepingWildcard: Array<{ id: number; userIds: number[] }>;
  /** who may no longer see the messages at all, told they are deleted */
  losingAccess: number[];
}

/**
 * A move to another channel (Zulip's do_update_message): those subscribed to
 * the new channel keep their rows, the others lose them; if the new channel
 * does not share its history, each of its subscribers gets a read row, with
 * no mention flag. Those who may no longer see the messages at all are
 * everyone without a row in a private channel, guests in a public one.
 */
async function receiverChange(
  deps: { subscriptions: SubscriptionDirectory; users: UserDirectory; receivers: ReceiverCache },
  ctx: HandlerContext,
  realmId: number,
  move: MoveDecision,
  plan: MovePlan,
): Promise<ReceiverChange> {
  const [newSubscribers, oldSubscribers] = await Promise.all([
    deps.subscriptions.subscriberIds(realmId, move.to.streamId),
    deps.subscriptions.subscriberIds(realmId, move.from.streamId),
  ]);
  const staying = new Set(newSubscribers);
  const before = await Promise.all(plan.messages.map((m) => deps.receivers.receiversOf(realmId, m)));
  const losing = idSet(before.flat()).filter((u) => !staying.has(u));
  const gaining = move.to.historyPublicToSubscribers ? [] : newSubscribers;
  // each message's receivers stored from now on, as Zulip's rows are after the move
  const lists = new Map<string, { ids: number[]; receivers: number[] }>();
  const keepingWildcard: ReceiverChange["keepingWildcard"] = [];
  plan.messages.forEach((m, i) => {
    const keeping = before[i]!.filter((u) => staying.has(u));
    if (m.streamWildcard) keepingWildcard.push({ id: m.messageId, userIds: keeping });
    const receivers = idSet([...keeping, ...gaining]);
    const key = receivers.join(",");
    const list = lists.get(key) ?? lists.set(key, { ids: [], receivers }).get(key)!;
    list.ids.push(m.messageId);
  });
  const stored = [...lists.values()];
  const mayHaveSeen = idSet([...losing, ...oldSubscribers]).filter((u) => !staying.has(u));
  if (move.to.inviteOnly) return { losing, stored, keepingWildcard, losingAccess: mayHaveSeen };
  const users = await deps.users.byIds(ctx, realmId, mayHaveSeen);
  return {
    losing,
    stored,
    keepingWildcard,
    losingAccess: mayHaveSeen.filter((u) => users.get(u)?.role === Role.GUEST),
  };
}

/**
 * Stores a receiverChange: the messages' receivers, and the rows of those
 * losing them. A message's @all mention, derived from the message while its
 * channel's subscriptions said who received it, goes to the rows of those who
 * keep it: those who gain the message get none, as Zulip's new rows.
 */
async function changeReceivers(
  deps: { messages: MessageRepository; userMessages: UserMessageRepository },
  realmId: number,
  ids: number[],
  change: ReceiverChange,
) {
  for (const { id, userIds } of change.keepingWildcard) {
    await deps.userMessages.storeChannelWildcard(realmId, id, userIds);
  }
  await deps.messages.storeReceivers(realmId, change.stored);
  await deps.userMessages.remove(realmId, change.losing, ids);
}

/**
 * The moved messages in the read states of the new channel's subscribers
 * (Zulip's do_update_message): those who had them keep them as they were (read
 * or unread in the old channel), everyone else sees them read, whether they
 * gain them (history not shared) or see them as the channel's history. One
 * document per subscriber, as Zulip updates a row per subscriber. Its past
 * members whose subscription there spanned a moved message's id see it read
 * too: their read state would take it as received, where its receivers are
 * stored now and leave them out (Zulip deletes the rows of those not
 * subscribed to the new channel).
 */
async function moveReadStates(
  deps: {
    subscriptions: SubscriptionDirectory;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
  },
  realmId: number,
  move: MoveDecision,
  moved: MessageDoc[],
): Promise<void> {
  const subscribers = await deps.subscriptions.subscriberIds(realmId, move.to.streamId);
  const subscribed = new Set(subscribers);
  const past = [...(await deps.readStates.intervalsIn(realmId, move.to.streamId))]
    .filter(([userId, intervals]) => !subscribed.has(userId) && moved.some((m) => inIntervals(intervals, m.messageId)))
    .map(([userId]) => userId);
  const before = await deps.readStates.ofUsers(realmId, move.from.streamId, subscribers);
  const lowest = Math.min(...moved.map((m) => m.messageId)) - 1;
  const channel = await deps.channelMessages.of(realmId, move.to.streamId, lowest);
  const refs = moved.map((m) => ({ id: m.messageId, senderId: m.senderId })).sort((a, b) => a.id - b.id);
  for (const userId of [...subscribers, ...past]) {
    const old = before.get(userId)?.state;
    const changes = moved.map((m) => {
      const message = { id: m.messageId, senderId: m.senderId };
      const had = receivedWith(m, userId, old?.intervals);
      return { message, unread: old !== undefined && had && isUnread(old, message, userId) };
    });
    await deps.readStates.change(realmId, userId, move.to.streamId, (s) => {
      // the moved messages are among the channel's now: the watermark must not pass over one left unread
      const above = [...channel.allAbove(s.watermark), ...refs.filter((r) => r.id > s.watermark)];
      return withStates(
        s,
        userId,
        changes,
        above.sort((a, b) => a.id - b.id),
      );
    });
  }
}

/**
 * PATCH /messages/{message_id} (Zulip's check_update_message): edits the
 * content (mentions re-rendered), moves the message, the later ones or all of
 * its topic to another topic or channel, as edit-policy.ts allows, and
 * records each change in the messages' edit history (move-plan.ts). Everyone who has the
 * messages hears update_message with their flags; those who lose access by a
 * move hear delete_message. Notification Bot then posts Zulip's resolve
 * notice and move breadcrumbs (move-notices.ts).
 */
export const updateMessageHandler =
  (
    deps: MoveNoticeDeps & LinkDeps & RenderDeps & { channelMessages: ChannelMessageCache },
  ): Handler<typeof messaging.updateMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [settings, message] = await Promise.all([
      deps.settings.get(ctx),
      accessMessage(deps, realm.id, actor, p.message_id, ctx),
    ]);
    const now = Math.floor(Date.now() / 1000);
    const { requestedTopic, content } = checkEdit(settings, actor, message, p, now);

    let move: MoveDecision | null = null;
    let moved = [message];
    if (message.streamId !== null) {
      const [from, subscribed, groups] = await Promise.all([
        deps.channels.byId(realm.id, message.streamId),
        deps.subscriptions.isSubscribed(realm.id, actor.userId, message.streamId),
        deps.userGroups.get(ctx),
      ]);
      if (!from) throw badRequest("Invalid message(s)");
      const to =
        p.stream_id !== undefined && p.stream_id !== from.streamId
          ? (await accessChannelById(deps, realm.id, actor, p.stream_id, ctx, "content")).channel
          : from;
      move = decideMove(settings, actor, groups, message, from, to, requestedTopic, now);
      const topicMessages = movesOtherMessages(move, p.propagate_mode)
        ? await deps.messages.ofTopic(realm.id, from.streamId, message.topicKey)
        : [];
      moved = movedMessages(
        settings,
        actor,
        groups,
        message,
        move,
        p.propagate_mode,
        {
          subscribed,
          topicMessages,
          intervals: topicMessages.length
            ? (await deps.readStates.of(realm.id, actor.userId, from.streamId)).state.intervals
            : [],
        },
        now,
      );
    }
    const plan = planMove(actor.userId, message, move, moved, now);
    const receiversBefore = await deps.receivers.receiversOf(realm.id, message);
    const rendered =
      content === undefined ? undefined : await renderMessage(deps, ctx, realm, message.senderId, content);
    if (rendered) await checkGroupMentions(deps, ctx, realm, actor.userId, rendered.mentions);
    // Zulip's update_message_content: the topic's participants are those of the topic the edit leaves it in.
    // A message received by subscription holds its @all mention itself (MessageDoc.streamWildcard): rows
    // hold the others, and lose any @all mention stored before the message held it.
    const messageHoldsWildcard = message.receivedBySubscription === true;
    const wildcardChange =
      messageHoldsWildcard && rendered && rendered.mentions.streamWildcard !== (message.streamWildcard === true)
        ? { streamWildcard: rendered.mentions.streamWildcard }
        : {};
    const mentioned =
      rendered === undefined
        ? new Map<number, string[]>()
        : mentionFlags(
            rendered.mentions,
            [...(await deps.users.byIds(ctx, realm.id, receiversBefore)).values()],
            await deps.userGroups.get(ctx),
            await topicParticipants(
              deps,
              realm.id,
              rendered.mentions,
              { streamId: message.streamId, topicKey: move ? move.topic.toLowerCase() : message.topicKey },
              message.senderId,
            ),
          );
    const mentions = new Map(
      [...mentioned].map(([userId, flags]) => [userId, messageHoldsWildcard ? withoutChannelWildcard(flags) : flags]),
    );
    // Zulip's get_mentions_for_message_updates: a mention the edit keeps is not notified again
    const priorMentionUserIds =
      content === undefined
        ? []
        : [...(await flagsOfUsers(deps, realm.id, message, receiversBefore))]
            .filter(([, flags]) => isMention(flags))
            .map(([userId]) => userId);
    const receivers = move?.channelChanged ? await receiverChange(deps, ctx, realm.id, move, plan) : undefined;
    // Zulip's do_update_message changes the messages, their rows and their topics in one transaction
    await withTransaction(deps.db, async () => {
      // first, so that the move appends the messages to their new channel's runs as they are after it:
      // without the MessageDoc.streamWildcard that changeReceivers takes from them
      if (receivers) await changeReceivers(deps, realm.id, plan.ids, receivers);
      if (content !== undefined) {
        const edited = contentChange(plan, message, content, rendered!.html, now);
        await deps.messages.applyEdit(
          realm.id,
          [message.messageId],
          { ...edited.set, ...wildcardChange },
          edited.entry,
        );
        const others = plan.ids.filter((id) => id !== message.messageId);
        if (others.length) await deps.messages.applyEdit(realm.id, others, plan.set, plan.entry);
        await deps.userMessages.setMentionFlags(
          realm.id,
          message.messageId,
          new Map(receiversBefore.map((u) => [u, mentions.get(u) ?? []])),
          message.streamId !== null,
        );
      } else {
        await deps.messages.applyEdit(realm.id, plan.ids, plan.set, plan.entry);
      }
      if (move && plan.relocated) {
        for (const [channel, key] of [
          [move.from, message.topicKey],
          [move.to, move.topic.toLowerCase()],
        ] as const) {
          const newest = await deps.messages.newestOfTopic(realm.id, channel.streamId, key);
          await deps.topics.refresh(realm.id, channel.streamId, key, newest);
        }
      }
    });
    if (content !== undefined) await updateAttachmentLinks(deps, ctx, realm.id, actor, message, content);
    if (move?.channelChanged) await moveReadStates(deps, realm.id, move, plan.messages);

    const losingAccess = receivers?.losingAccess ?? [];
    if (losingAccess.length) {
      deps.events.publish(
        messagingEvents.messagesDeleted,
        {
          realmId: realm.id,
          userIds: losingAccess,
          event: {
            type: "delete_message",
            message_ids: plan.ids,
            message_type: "stream",
            stream_id: move!.from.streamId,
            topic: message.topic,
          },
        },
        ctx.requestId,
      );
    }

    // after the move: those who have the message now, and the old channel's readers of shared history
    const after = (await deps.messages.byId(realm.id, message.messageId)) ?? message;
    const lost = new Set(losingAccess);
    const receiversAfter = await deps.receivers.receiversOf(realm.id, after);
    const audience = (await messageAudience(deps, realm.id, message.streamId, receiversAfter)).filter(
      (u) => !lost.has(u),
    );
    const rowFlags = await flagsOfUsers(deps, realm.id, after, receiversAfter);
    const event: UpdateMessageEvent = {
      type: "update_message",
      user_id: actor.userId,
      edit_timestamp: now,
      message_id: message.messageId,
      message_ids: plan.ids,
      rendering_only: false,
      ...(move ? { stream_name: move.from.name, stream_id: move.from.streamId } : {}),
      ...(plan.relocated ? { propagate_mode: p.propagate_mode, orig_subject: message.topic } : {}),
      ...(move?.channelChanged ? { new_stream_id: move.to.streamId } : {}),
      ...(move?.topicChanged
        ? { subject: move.topic, topic_links: topicLinks(move.topic, await deps.linkifiers.get(ctx)) }
        : {}),
      ...(content !== undefined
        ? {
            orig_content: message.content,
            orig_rendered_content: message.renderedContent,
            content,
            rendered_content: rendered!.html,
            is_me_message: /^\/me\s/.test(content),
          }
        : {}),
    };
    deps.events.publish(
      messagingEvents.messageUpdated,
      {
        realmId: realm.id,
        userIds: audience,
        event,
        flags: Object.fromEntries(audience.map((u) => [u, rowFlags.get(u) ?? ["read"]])),
        ...(content !== undefined && {
          contentEdit: {
            message: messageView(
              after,
              await loadViewContext(deps, ctx, realm, settings, [after], {
                applyMarkdown: true,
                clientGravatar: false,
                allowEmptyTopicName: true,
              }),
            ),
            markdown: content,
            priorMentionUserIds,
            ...(after.streamWildcard && { streamWildcard: true as const }),
          },
        }),
      },
      ctx.requestId,
    );

    if (rendered) {
      requestLinkPreviews(deps.events, ctx.requestId, {
        realm,
        messageId: message.messageId,
        senderId: message.senderId,
        content: content!,
        urls: rendered.linksForPreview,
      });
    }

    if (move && plan.relocated) {
      if (move.channelChanged) {
        await refreshFirstMessage(deps, ctx, realm.id, move.from.streamId, { left: plan.ids });
        await refreshFirstMessage(deps, ctx, realm.id, move.to.streamId, { entered: plan.ids });
      }
      const resolved = move.resolveToggle && move.topic.startsWith(RESOLVED_TOPIC_PREFIX);
      await sendMoveNotices(
        deps,
        ctx,
        {
          target: message,
          from: move.from,
          to: move.to,
          origTopic: message.topic,
          topic: move.topic,
          topicChanged: move.topicChanged,
          channelChanged: move.channelChanged,
          resolved,
          unresolved: move.resolveToggle && !resolved,
          contentChanged: content !== undefined,
          propagateMode: p.propagate_mode,
          moved: plan.messages,
        },
        { oldThread: p.send_notification_to_old_thread, newThread: p.send_notification_to_new_thread },
      );
    }
    return { detached_uploads: [] };
  };
