import type { MessageDoc } from "../messages/message.schema";
import { inFlagOrder, withChannelWildcard } from "./flags";
import { isUnread, type ChannelReadState } from "./read-state";
import type { ReadStateRepository } from "./read-state.repository";
import type { UserMessageRepository } from "./user-message.repository";
import { receivedWith, type ReceivedMessage } from "./receiver-cache";

type Flagged = ReceivedMessage & Pick<MessageDoc, "senderId" | "streamWildcard">;

/**
 * These users' flags on one message, for those who received it or have a row
 * of it, as Zulip's UserMessage rows hold them: a direct message's from its
 * rows; a channel message's read flag from each user's read state in the
 * channel (one document per user asked), its other flags from their rows and
 * the message's channel-wide wildcard mention.
 */
export async function flagsOfUsers(
  deps: { userMessages: UserMessageRepository; readStates: ReadStateRepository },
  realmId: number,
  message: Flagged,
  userIds: number[],
): Promise<Map<number, string[]>> {
  const rows = await deps.userMessages.flagsByUser(realmId, message.messageId, userIds);
  if (message.streamId === null) return rows;
  const states = await deps.readStates.ofUsers(realmId, message.streamId, userIds);
  const flags = new Map<number, string[]>();
  for (const userId of userIds) {
    const state = states.get(userId)?.state;
    if (!rows.has(userId) && !receivedWith(message, userId, state?.intervals)) continue;
    flags.set(userId, channelMessageFlags(message, userId, state, rows.get(userId)));
  }
  return flags;
}

/** One user's rows of some messages and their read states: what their flags on those messages come from. */
export interface UserFlagSources {
  rows: Map<number, string[]>;
  /** by channel id */
  states: Map<number, ChannelReadState>;
}

/** Reads a user's flag sources once for these messages: their rows of them and all their read states. */
export async function flagSourcesOf(
  deps: { userMessages: UserMessageRepository; readStates: ReadStateRepository },
  realmId: number,
  userId: number,
  messageIds: number[],
): Promise<UserFlagSources> {
  const [rows, states] = await Promise.all([
    deps.userMessages.flagsOf(realmId, userId, messageIds),
    deps.readStates.ofUser(realmId, userId),
  ]);
  return { rows, states: new Map(states.map((r) => [r.streamId, r.state])) };
}

/**
 * One user's flags on these messages, for those they received or have a row
 * of, by message id: flagsOfUsers' rules, from sources read once.
 */
export function flagsIn(sources: UserFlagSources, userId: number, messages: Flagged[]): Map<number, string[]> {
  const flags = new Map<number, string[]>();
  for (const m of messages) {
    const row = sources.rows.get(m.messageId);
    if (m.streamId === null) {
      if (row) flags.set(m.messageId, row);
      continue;
    }
    const state = sources.states.get(m.streamId);
    if (!row && !receivedWith(m, userId, state?.intervals)) continue;
    flags.set(m.messageId, channelMessageFlags(m, userId, state, row));
  }
  return flags;
}

/**
 * A user's flags on a channel message, as Zulip's UserMessage row holds them:
 * read from their read state in the channel (read without one), the others
 * from their row of the message, if any ("read" in it is only its marker),
 * and an @all mention's from the message when they received it (Zulip's
 * create_user_messages flags the rows of its recipients, not of those who
 * see it in the channel's history).
 */
export function channelMessageFlags(
  message: Flagged,
  userId: number,
  state: ChannelReadState | undefined,
  row: readonly string[] | undefined,
): string[] {
  const read = state === undefined || !isUnread(state, { id: message.messageId, senderId: message.senderId }, userId);
  const stored = (row ?? []).filter((f) => f !== "read");
  const flags = inFlagOrder(read ? ["read", ...stored] : stored);
  return message.streamWildcard && receivedWith(message, userId, state?.intervals) ? withChannelWildcard(flags) : flags;
}

/** Of these messages, those the user still has unread (a deleted message has none), from sources read for them. */
export function unreadIn(
  sources: UserFlagSources,
  userId: number,
  messages: Array<Pick<MessageDoc, "messageId" | "streamId" | "senderId">>,
): number[] {
  return messages
    .filter((m) => {
      const row = sources.rows.get(m.messageId);
      if (m.streamId === null) return row !== undefined && !row.includes("read");
      const state = sources.states.get(m.streamId);
      return state !== undefined && isUnread(state, { id: m.messageId, senderId: m.senderId }, userId);
    })
    .map((m) => m.messageId);
}

/** Of these messages, those the user still has unread (a deleted message has none). */
export async function unreadOfUser(
  deps: { userMessages: UserMessageRepository; readStates: ReadStateRepository },
  realmId: number,
  userId: number,
  messages: Array<Pick<MessageDoc, "messageId" | "streamId" | "senderId">>,
): Promise<number[]> {
  // a channel message's unread mark is its read state's: only direct messages' rows are needed
  const direct = messages.filter((m) => m.streamId === null).map((m) => m.messageId);
  return unreadIn(await flagSourcesOf(deps, realmId, userId, direct), userId, messages);
}
