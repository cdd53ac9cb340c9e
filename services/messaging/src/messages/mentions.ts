import type { GroupMembership, RenderedMentions, notifications } from "@teamchat/shared";
import type { UserSummary } from "../users/user-directory";
import type { MessageRepository } from "./message.repository";

/**
 * Zulip's mention flags, from what the message's rendering notifies
 * (create_user_messages and update_user_message_flags): a mentioned user, and
 * the members of a mentioned group (through its subgroups), get `mentioned`;
 * a channel wildcard gives every recipient `stream_wildcard_mentioned`, a
 * topic wildcard only the topic's participants `topic_wildcard_mentioned`;
 * either adds the legacy `wildcard_mentioned` (see STORED_FLAGS). Silent and
 * quoted mentions notify nobody. A channel message received by subscription
 * holds its channel wildcard's flags itself (CHANNEL_WILDCARD_FLAGS), not in
 * its receivers' rows.
 */
export function mentionFlags(
  mentions: RenderedMentions,
  recipients: UserSummary[],
  groups: GroupMembership,
  topicParticipants: ReadonlySet<number>,
): Map<number, string[]> {
  const flags = new Map<number, string[]>();
  for (const u of recipients) {
    const member = { userId: u.user_id, role: u.role };
    const mentioned =
      mentions.userIds.has(u.user_id) || [...mentions.groupIds].some((groupId) => groups.has(groupId, member));
    const topicWildcard = mentions.topicWildcard && topicParticipants.has(u.user_id);
    const userFlags = [
      ...(mentioned ? ["mentioned"] : []),
      ...(mentions.streamWildcard ? ["stream_wildcard_mentioned"] : []),
      ...(topicWildcard ? ["topic_wildcard_mentioned"] : []),
      ...(mentions.streamWildcard || topicWildcard ? ["wildcard_mentioned"] : []),
    ];
    if (userFlags.length > 0) flags.set(u.user_id, userFlags);
  }
  return flags;
}

/**
 * Zulip's get_user_group_mentions_data: each recipient notified only through
 * mentioned groups (a personal mention comes first), with the group their
 * notification names: of the groups they belong to, the one with the fewest
 * members, the first mentioned among equals. `everyone` counts the members
 * (the organization's active users).
 */
export function mentionedUserGroups(
  mentions: RenderedMentions,
  recipients: UserSummary[],
  groups: GroupMembership,
  names: ReadonlyMap<number, string>,
  everyone: UserSummary[],
): Map<number, notifications.MentionedUserGroup> {
  const byUser = new Map<number, notifications.MentionedUserGroup>();
  if (mentions.groupIds.size === 0) return byUser;
  const mentioned = [...mentions.groupIds].map((id) => ({
    id,
    name: names.get(id) ?? "",
    membersCount: everyone.filter((u) => u.is_active && groups.has(id, { userId: u.user_id, role: u.role })).length,
  }));
  for (const u of recipients) {
    if (mentions.userIds.has(u.user_id)) continue;
    for (const group of mentioned) {
      if (!groups.has(group.id, { userId: u.user_id, role: u.role })) continue;
      const previous = byUser.get(u.user_id);
      if (!previous || previous.membersCount > group.membersCount) byUser.set(u.user_id, group);
    }
  }
  return byUser;
}

/**
 * Zulip's topic_participant_user_ids: who sent or reacted to a message of the
 * topic, and the sender (whose first message in the topic may be this one).
 * Read only when the message has a topic wildcard, as Zulip does: it costs a
 * pass over the topic.
 */
export async function topicParticipants(
  deps: { messages: Pick<MessageRepository, "participantsOf"> },
  realmId: number,
  mentions: RenderedMentions,
  where: { streamId: number | null; topicKey: string },
  senderId: number,
): Promise<Set<number>> {
  if (!mentions.topicWildcard || where.streamId === null) return new Set();
  return (await deps.messages.participantsOf(realmId, where.streamId, where.topicKey)).add(senderId);
}
