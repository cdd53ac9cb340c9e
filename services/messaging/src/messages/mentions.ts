import type { GroupMembership, RenderedMentions } from "@teamchat/shared";
import type { UserSummary } from "../users/user-directory";

/**
 * Zulip's mention flags, from what the message's rendering notifies: a
 * mentioned user, and the members of a mentioned group (through its
 * subgroups), get `mentioned`; a channel or topic wildcard gives every
 * recipient `wildcard_mentioned`. Silent and quoted mentions notify nobody.
 */
export function mentionFlags(
  mentions: RenderedMentions,
  recipients: UserSummary[],
  groups: GroupMembership,
): Map<number, string[]> {
  const flags = new Map<number, string[]>();
  for (const u of recipients) {
    const member = { userId: u.user_id, role: u.role };
    const mentioned =
      mentions.userIds.has(u.user_id) || [...mentions.groupIds].some((groupId) => groups.has(groupId, member));
    const userFlags = [...(mentioned ? ["mentioned"] : []), ...(mentions.wildcard ? ["wildcard_mentioned"] : [])];
    if (userFlags.length > 0) flags.set(u.user_id, userFlags);
  }
  return flags;
}
