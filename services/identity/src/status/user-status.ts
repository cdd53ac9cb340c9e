import {
  checkEmojiRequest,
  emojiByName,
  reactionTypeOf,
  badRequest,
  type CustomEmoji,
  type identity,
} from "@teamchat/shared";
import { settingsOf } from "../users/settings";
import type { UserDoc, UserStatusDoc } from "../users/user.schema";

/** A user's status before they set one (Zulip's UserStatus defaults). */
export const NO_STATUS: UserStatusDoc = { text: "", emojiName: "", emojiCode: "", reactionType: "unicode_emoji" };

/**
 * Zulip's format_user_status: what is set, and `away` (the legacy inverse of
 * presence_enabled) when true; `{}` for a user who never set a status.
 */
export function formatUserStatus(user: UserDoc): identity.UserStatus {
  if (!user.status) return {};
  const { text, emojiName, emojiCode, reactionType } = user.status;
  return {
    ...(!settingsOf(user).presence_enabled && { away: true as const }),
    ...(text && { status_text: text }),
    ...(emojiName && { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType }),
  };
}

/** Whether register's user_status lists the user: a status row saying anything (Zulip's get_all_users_status_dict). */
export const hasStatusToShow = (user: UserDoc): boolean =>
  user.isActive && user.status !== undefined && Object.keys(formatUserStatus(user)).length > 0;

export interface StatusChange {
  text?: string;
  emoji?: Pick<UserStatusDoc, "emojiName" | "emojiCode" | "reactionType">;
}

/**
 * Zulip's check_update_user_status: something must change; an empty emoji
 * name clears the emoji; a name alone stands for the emoji it names now; a
 * code or type needs a name; the three must name one emoji.
 */
export function checkStatusChange(
  p: {
    away?: boolean;
    status_text?: string;
    emoji_name?: string;
    emoji_code?: string;
    reaction_type?: string;
  },
  /** the organization's custom emoji */
  custom: CustomEmoji,
): StatusChange {
  const { away, status_text: text, emoji_name: name } = p;
  if (away === undefined && text === undefined && name === undefined) {
    throw badRequest("Client did not pass any new values.");
  }
  if (name === undefined) {
    if (p.emoji_code || p.reaction_type) {
      throw badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
    }
    return { text };
  }
  if (name === "") return { text, emoji: { emojiName: "", emojiCode: "", reactionType: "unicode_emoji" } };
  let code = p.emoji_code;
  let type = p.reaction_type === undefined ? undefined : reactionTypeOf(p.reaction_type);
  if (code === undefined || type === undefined) {
    const named = emojiByName(name, custom);
    code ??= named.emojiCode;
    type ??= named.reactionType;
  }
  checkEmojiRequest(name, code, type, custom);
  return { text, emoji: { emojiName: name, emojiCode: code, reactionType: type } };
}
