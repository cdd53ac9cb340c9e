import { messaging, requireRealm, type Handler } from "@teamchat/shared";
import type { UserMessageRepository } from "../user-messages/user-message.repository";

/** Internal: of these messages, those the user still has unread (a deleted message has no row). */
export const getUnreadMessageIdsHandler =
  ({ userMessages }: { userMessages: UserMessageRepository }): Handler<typeof messaging.getUnreadMessageIds> =>
  async ({ user_id, message_ids }, ctx) => {
    const flags = await userMessages.flagsOf(requireRealm(ctx).id, user_id, message_ids);
    return { message_ids: message_ids.filter((id) => flags.has(id) && !flags.get(id)!.includes("read")) };
  };
