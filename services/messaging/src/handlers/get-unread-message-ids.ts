import { messaging, requireRealm, type Handler } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import { unreadOfUser } from "../user-messages/message-flags";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";

/** Internal: of these messages, those the user still has unread (a deleted message is not). */
export const getUnreadMessageIdsHandler =
  (deps: {
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
  }): Handler<typeof messaging.getUnreadMessageIds> =>
  async ({ user_id, message_ids }, ctx) => {
    const realmId = requireRealm(ctx).id;
    const unread = new Set(
      await unreadOfUser(deps, realmId, user_id, await deps.messages.summaries(realmId, message_ids)),
    );
    return { message_ids: message_ids.filter((id) => unread.has(id)) };
  };
