import type { messaging } from "@teamchat/shared";
import type { MoveDecision } from "./edit-policy";
import type { MessageDoc } from "./message.schema";
import { contentFeatures } from "./content-features";

/** What an edit stores on the messages it changes (Zulip's do_update_message), decided before the transaction. */
export interface MovePlan {
  /** the messages changed: those moved, or the edited one alone */
  messages: MessageDoc[];
  ids: number[];
  /** the messages change channel or topic (not only content) */
  relocated: boolean;
  /** the fields every changed message gets */
  set: Partial<MessageDoc>;
  /** the edit history entry every changed message gets */
  entry: messaging.EditHistoryEntry;
}

/**
 * The stored side of a move: the new channel and topic, and the edit history
 * entry naming the old and new ones. Zulip's last_moved_timestamp is set by
 * every move but one that only resolves or unresolves the topic.
 */
export function planMove(
  editorId: number,
  message: MessageDoc,
  move: MoveDecision | null,
  moved: MessageDoc[],
  now: number,
): MovePlan {
  const stamp: messaging.EditHistoryEntry = { user_id: editorId, timestamp: now };
  if (!move || !(move.topicChanged || move.channelChanged)) {
    return { messages: [message], ids: [message.messageId], relocated: false, set: {}, entry: stamp };
  }
  return {
    messages: moved,
    ids: moved.map((m) => m.messageId),
    relocated: true,
    set: {
      streamId: move.to.streamId,
      recipientId: move.to.recipientId,
      topic: move.topic,
      topicKey: move.topic.toLowerCase(),
      ...(move.channelChanged || !move.resolveToggle ? { lastMovedTimestamp: now } : {}),
    },
    entry: {
      ...stamp,
      ...(move.channelChanged ? { prev_stream: move.from.streamId, stream: move.to.streamId } : {}),
      ...(move.topicChanged ? { prev_topic: message.topic, topic: move.topic } : {}),
    },
  };
}

/**
 * The edited message's own change when its content changes: the move's fields
 * with the new content, and one history entry with the previous content and
 * the move's channel and topic change, in Zulip's key order.
 */
export function contentChange(
  plan: MovePlan,
  message: MessageDoc,
  content: string,
  renderedContent: string,
  now: number,
): { set: Partial<MessageDoc>; entry: messaging.EditHistoryEntry } {
  const { prev_stream, stream, prev_topic, topic, ...stamp } = plan.entry;
  return {
    set: { ...plan.set, content, renderedContent, ...contentFeatures(renderedContent), lastEditTimestamp: now },
    entry: {
      ...stamp,
      prev_content: message.content,
      prev_rendered_content: message.renderedContent,
      ...(prev_stream === undefined ? {} : { prev_stream, stream }),
      ...(prev_topic === undefined ? {} : { prev_topic, topic }),
    },
  };
}
