import { flagsOfUsers } from "../user-messages/message-flags";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import { badRequest, requireUser, type Handler, type messaging, type UserGroupMemberships } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import { accessMessage } from "../messages/message-access";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * GET /messages/{message_id}/read_receipts (Zulip's read_receipts view): the
 * users who received the message and read it, but not its sender, deactivated
 * users, those who turned send_read_receipts off, users the caller muted and
 * users who muted the caller (who would otherwise be seen reading every message
 * at once). Zulip also counts historical rows (a reader who starred a message
 * of a channel they had not joined); here only the message's recipients are
 * asked.
 */
export const getReadReceiptsHandler =
  (deps: {
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    users: UserDirectory;
    settings: RealmSettingsSource;
    mutedUsers: MutedUserIndex;
  }): Handler<typeof messaging.getReadReceipts> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const message = await accessMessage(deps, realm.id, actor, p.message_id, ctx);
    if (!(await deps.settings.get(ctx)).enable_read_receipts) {
      throw badRequest("Read receipts are disabled in this organization.");
    }
    const receivers = await deps.receivers.receiversOf(realm.id, message);
    const [users, muted, muters] = await Promise.all([
      deps.users.byIds(ctx, realm.id, receivers),
      deps.mutedUsers.mutedBy(realm.id, actor.userId),
      deps.mutedUsers.mutersOf(realm.id, actor.userId),
    ]);
    const candidates = receivers.filter((id) => {
      const u = users.get(id);
      const muting = muted.has(id) || muters.has(id);
      return id !== message.senderId && u !== undefined && u.is_active && u.send_read_receipts && !muting;
    });
    const flags = await flagsOfUsers(deps, realm.id, message, candidates);
    return { user_ids: candidates.filter((id) => flags.get(id)?.includes("read")) };
  };
