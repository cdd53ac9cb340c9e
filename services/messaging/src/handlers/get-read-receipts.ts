import { badRequest, requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { Deps } from "../deps";
import { accessMessage } from "../messages/message-access";

/**
 * GET /messages/{message_id}/read_receipts (Zulip's read_receipts view): the
 * users who received the message and read it, but not its sender, deactivated
 * users or those who turned send_read_receipts off. Zulip also leaves out users
 * muted by or muting the caller (muting does not exist here yet) and counts
 * historical rows (a reader who starred a message of a channel they had not
 * joined); here only the message's recipients are asked.
 */
export const getReadReceiptsHandler =
  (
    deps: Deps<"messages" | "userMessages" | "channels" | "subscriptions" | "userGroups" | "users" | "settings">,
  ): Handler<typeof messaging.getReadReceipts> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const message = await accessMessage(deps, realm.id, actor, p.message_id, ctx);
    if (!(await deps.settings.get(ctx)).enable_read_receipts) {
      throw badRequest("Read receipts are disabled in this organization.");
    }
    const users = await deps.users.byIds(ctx, realm.id, message.receivers);
    const candidates = message.receivers.filter((id) => {
      const u = users.get(id);
      return id !== message.senderId && u !== undefined && u.is_active && u.send_read_receipts;
    });
    const readers = new Set(await deps.userMessages.readersOf(realm.id, message.messageId, candidates));
    return { user_ids: candidates.filter((id) => readers.has(id)) };
  };
