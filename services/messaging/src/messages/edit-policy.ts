/**
 * Zulip's rules for PATCH /messages/{message_id} (zerver/views/message_edit.py
 * and zerver/actions/message_edit.py): who may edit a message's content, move
 * it to another topic or channel, resolve its topic, and which messages a
 * propagate_mode moves. Decided from what the handler loaded, with no I/O;
 * each refusal is Zulip's error, in Zulip's order.
 */
import {
  Role,
  ZulipError,
  badRequest,
  type Actor,
  type ChannelGroupSetting,
  type GroupMembership,
  type GroupSettingValue,
  type ParamsOf,
  messaging,
  type realmConfig,
} from "@teamchat/shared";
import { canReadHistory } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import { groupSetting } from "../channels/channel-view";
import { checkTopicAllowed, normalizeContent, normalizeStoredTopic, normalizeTopic } from "./message-content";
import type { MessageDoc } from "./message.schema";
import { receivedWith } from "../user-messages/receiver-cache";

type Settings = realmConfig.RealmSettings;

/** What an edit request asks (PATCH /messages/{message_id}'s parameters). */
export type EditRequest = Pick<
  ParamsOf<typeof messaging.updateMessage>,
  "content" | "topic" | "subject" | "stream_id" | "propagate_mode"
>;

/** Zulip allows edits and moves this long past a time limit (a client's countdown, network delays). */
const EDIT_LIMIT_BUFFER_SECONDS = 20;
export const { RESOLVED_TOPIC_PREFIX } = messaging;

const pastLimit = (message: Pick<MessageDoc, "timestamp">, limit: number | null, now: number): boolean =>
  limit !== null && now - message.timestamp > limit + EDIT_LIMIT_BUFFER_SECONDS;

const isModerator = (actor: Pick<Actor, "role">): boolean => actor.role <= Role.MODERATOR;

/** In the organization's group for a permission, the channel's, or among the channel's administrators. */
const permitted = (
  groups: GroupMembership,
  actor: Actor,
  realmGroup: GroupSettingValue,
  channel: ChannelDoc,
  channelSetting: ChannelGroupSetting,
) =>
  groups.includes(realmGroup, actor) ||
  groups.includes(groupSetting(channel, channelSetting), actor) ||
  groups.includes(groupSetting(channel, "can_administer_channel_group"), actor);

/** Zulip's validate_user_can_edit_message: only the sender edits content, within the organization's limit. */
function checkContentEdit(settings: Settings, actor: Actor, message: MessageDoc, now: number): void {
  if (!settings.allow_message_editing) throw badRequest("Your organization has turned off message editing");
  if (message.senderId !== actor.userId) throw badRequest("You don't have permission to edit this message");
  if (pastLimit(message, settings.message_content_edit_limit_seconds, now)) {
    throw badRequest("The time limit for editing this message has passed");
  }
}

/** The topic asked for, as Zulip compares it: trimmed, the empty-topic display name meaning ""; unset when unchanged. */
function requestedTopic(p: EditRequest, settings: Settings, message: MessageDoc): string | undefined {
  const given = (p.topic ?? p.subject)?.trim();
  const topic = given === settings.realm_empty_topic_display_name ? "" : given;
  return topic === message.topic ? undefined : topic;
}

/** Zulip's validate_message_edit_payload: the request's shape, before any permission. */
function checkPayload(p: EditRequest, topic: string | undefined, message: MessageDoc): void {
  if (topic === undefined && p.content === undefined && p.stream_id === undefined) {
    throw badRequest("Nothing to change");
  }
  if (message.type === "private") {
    if (p.stream_id !== undefined) throw badRequest("Direct messages cannot be moved to channels.");
    if (topic !== undefined) throw badRequest("Direct messages cannot have topics.");
  }
  if (p.propagate_mode !== "change_one" && topic === undefined && p.stream_id === undefined) {
    throw badRequest("Invalid propagate_mode without topic edit");
  }
  if (topic === RESOLVED_TOPIC_PREFIX.trim() || topic === `${RESOLVED_TOPIC_PREFIX}(no topic)`) {
    throw badRequest("General chat cannot be marked as resolved");
  }
  if (p.stream_id !== undefined && p.content !== undefined) {
    throw badRequest("Cannot change message content while changing channel");
  }
  // Zulip's is_widget_message: a message with any submessage keeps its content
  if (p.content !== undefined && (message.submessages?.length ?? 0) > 0) {
    throw badRequest("Widgets cannot be edited.");
  }
}

/** What an edit request asks once checked: the topic asked for (unset when unchanged), the new content as stored. */
export interface CheckedEdit {
  requestedTopic: string | undefined;
  content: string | undefined;
}

/**
 * The checks of an edit that need no channel: the content edit's permission
 * and time limit (validate_user_can_edit_message), then the request's shape
 * (validate_message_edit_payload). Content left empty becomes "(deleted)", as
 * Zulip's check_update_message stores it.
 */
export function checkEdit(
  settings: Settings,
  actor: Actor,
  message: MessageDoc,
  p: EditRequest,
  now: number,
): CheckedEdit {
  if (p.content !== undefined) checkContentEdit(settings, actor, message, now);
  const requested = requestedTopic(p, settings, message);
  checkPayload(p, requested, message);
  const content =
    p.content === undefined
      ? undefined
      : normalizeContent(p.content.trimEnd() === "" ? "(deleted)" : p.content, settings);
  return { requestedTopic: requested, content };
}

/** Zulip's topic_resolved / topic_unresolved: the same topic with the ✔ prefix added or removed. */
function isResolveToggle(from: string, requested: string, to: string): boolean {
  const resolved = (t: string) => t.startsWith(RESOLVED_TOPIC_PREFIX);
  if (resolved(to) && !resolved(from)) return requested.slice(RESOLVED_TOPIC_PREFIX.length) === from;
  return resolved(from) && !resolved(to) && from.replace(/^[✔ ]+/, "") === to;
}

/** A channel message's destination after an edit, and what kind of move it is. */
export interface MoveDecision {
  from: ChannelDoc;
  to: ChannelDoc;
  topic: string;
  topicChanged: boolean;
  channelChanged: boolean;
  /** the topic change only resolves or unresolves the topic: not a move to Zulip's last_moved_timestamp */
  resolveToggle: boolean;
}

/**
 * Where a channel message goes, checked as Zulip's check_update_message does:
 * the destination's topics policy (a content edit too, where the channel now
 * allows only the empty topic: build_message_edit_request), the permission to
 * resolve topics or to move within the channel and its time limit, the
 * permission to move out of the channel, to post in the new one, and its time
 * limit. `to` is the channel asked for (`from` when none), already checked as
 * readable by the editor; moderators are past the time limits.
 */
export function decideMove(
  settings: Settings,
  actor: Actor,
  groups: GroupMembership,
  message: MessageDoc,
  from: ChannelDoc,
  to: ChannelDoc,
  requested: string | undefined,
  now: number,
): MoveDecision {
  const channelChanged = to.streamId !== from.streamId;
  const topicChanged = requested !== undefined;
  const topic =
    requested !== undefined
      ? normalizeTopic(requested, settings, to)
      : channelChanged
        ? normalizeStoredTopic(message.topic, settings, to)
        : message.topic;
  if (!topicChanged && !channelChanged) checkTopicAllowed(topic, settings, to, false);
  const resolveToggle = requested !== undefined && isResolveToggle(message.topic, requested, topic);

  if (resolveToggle) {
    if (!permitted(groups, actor, settings.can_resolve_topics_group, from, "can_resolve_topics_group")) {
      throw badRequest("You don't have permission to resolve topics in this channel.");
    }
  } else if (topicChanged) {
    if (
      !permitted(
        groups,
        actor,
        settings.can_move_messages_between_topics_group,
        from,
        "can_move_messages_within_channel_group",
      )
    ) {
      throw badRequest("You don't have permission to edit this message");
    }
    if (!isModerator(actor) && pastLimit(message, settings.move_messages_within_stream_limit_seconds, now)) {
      throw badRequest("The time limit for editing this message's topic has passed.");
    }
  }
  if (channelChanged) {
    if (
      !permitted(
        groups,
        actor,
        settings.can_move_messages_between_channels_group,
        from,
        "can_move_messages_out_of_channel_group",
      )
    ) {
      throw badRequest("You don't have permission to move this message");
    }
    if (!groups.includes(groupSetting(to, "can_send_message_group"), actor)) {
      throw badRequest("You do not have permission to post in this channel.");
    }
    if (!isModerator(actor) && pastLimit(message, settings.move_messages_between_streams_limit_seconds, now)) {
      throw badRequest("The time limit for editing this message's channel has passed");
    }
  }
  return { from, to, topic, topicChanged, channelChanged, resolveToggle };
}

/** Whether the move takes other messages of the topic: the handler then loads them for movedMessages. */
export const movesOtherMessages = (move: MoveDecision, propagateMode: EditRequest["propagate_mode"]): boolean =>
  (move.topicChanged || move.channelChanged) && propagateMode !== "change_one";

/**
 * Zulip's check_time_limit_for_change_all_propagate_mode: moving a whole topic
 * needs every message of it within the time limits that apply, else the
 * reply says how many of the most recent ones may be moved.
 */
function checkWholeTopicMovable(settings: Settings, visible: MessageDoc[], move: MoveDecision, now: number): void {
  const limits = [
    move.topicChanged ? settings.move_messages_within_stream_limit_seconds : null,
    move.channelChanged ? settings.move_messages_between_streams_limit_seconds : null,
  ].filter((l): l is number => l !== null);
  if (!limits.length) return;
  const movable = visible.filter((m) => !pastLimit(m, Math.min(...limits), now));
  if (movable.length === visible.length) return;
  throw new ZulipError(
    "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    `You only have permission to move the ${movable.length}/${visible.length} most recent messages in this topic.`,
    400,
    {
      first_message_id_allowed_to_move: movable[0]?.messageId ?? null,
      total_messages_in_topic: visible.length,
      total_messages_allowed_to_move: movable.length,
    },
  );
}

/**
 * The messages a move takes (the edited one among them): that one for
 * change_one; of the topic's messages (ascending) those the editor can see,
 * from the edited one on for change_later, all for change_all, which needs
 * them all within the time limits unless the editor is a moderator or only
 * resolves the topic.
 */
export function movedMessages(
  settings: Settings,
  actor: Actor,
  groups: GroupMembership,
  message: MessageDoc,
  move: MoveDecision,
  propagateMode: EditRequest["propagate_mode"],
  access: {
    subscribed: boolean;
    topicMessages: MessageDoc[];
    /** the actor's subscription intervals in the channel moved from: which of its messages they received */
    intervals: readonly number[];
  },
  now: number,
): MessageDoc[] {
  if (!movesOtherMessages(move, propagateMode)) return [message];
  const visible = canReadHistory(actor, move.from, access.subscribed, groups)
    ? access.topicMessages
    : access.topicMessages.filter((m) => receivedWith(m, actor.userId, access.intervals));
  if (propagateMode === "change_all" && !isModerator(actor) && !move.resolveToggle) {
    checkWholeTopicMovable(settings, visible, move, now);
  }
  return propagateMode === "change_all" ? visible : visible.filter((m) => m.messageId >= message.messageId);
}
