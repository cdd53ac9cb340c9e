import { badRequest, isAdmin, messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";

/**
 * GET /streams/{stream_id}/email_address (Zulip's get_stream_email_address).
 * This server has no incoming-email gateway: Zulip's encode_email_address
 * answers "" when EMAIL_GATEWAY_PATTERN is unset, and so does this. Another
 * sender must still be a bot the user may administer (access_bot_by_id; bot
 * owners are not known here, so organization administrators).
 */
export const getStreamEmailAddressHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getStreamEmailAddress> =>
  async ({ stream_id, sender_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await accessChannelById(deps, realm.id, actor, stream_id, ctx, "content");
    if (sender_id !== undefined && sender_id !== actor.userId) {
      const sender = (await deps.users.byIds(ctx, realm.id, [sender_id])).get(sender_id);
      if (!sender?.is_active || !sender.is_bot) throw badRequest("No such bot");
      if (!isAdmin(actor)) throw badRequest("Insufficient permission");
    }
    return { email: "" };
  };
