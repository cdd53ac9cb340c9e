import { WELCOME_BOT, type HandlerContext } from "@teamchat/shared";
import type { MessageDoc } from "../messages/message.schema";
import { internalSendPrivateMessage, type InternalSendDeps, type NoticeOptions } from "../messages/internal-send";
import { unusedFence } from "../messages/message-content";

/**
 * Zulip's get_custom_welcome_message_string: the administrators' text, quoted
 * (in a fence none of its lines closes) under a silent mention of the
 * administrators group.
 */
export function welcomeBotCustomMessage(customText: string): string {
  const fence = unusedFence(customText);
  return `A note from @_*role:administrators*:\n${fence}quote\n${customText}\n${fence}`;
}

/**
 * Welcome Bot's custom message to one user, sent as Zulip's
 * send_initial_direct_messages_to_user and the test endpoint send it: never
 * mailed or pushed (disable_external_notifications), as it is meant to be
 * read in the app; null when it could not be sent (internalSendPrivateMessage).
 */
export const sendWelcomeBotCustomMessage = (
  deps: InternalSendDeps,
  ctx: HandlerContext,
  userId: number,
  customText: string,
  opts: Pick<NoticeOptions, "starredBy"> = {},
): Promise<MessageDoc | null> =>
  internalSendPrivateMessage(deps, ctx, userId, welcomeBotCustomMessage(customText), {
    ...opts,
    sender: WELCOME_BOT,
    disableExternalNotifications: true,
  });
