import {
  badRequest,
  requireRealm,
  type Handler,
  type messaging,
  type UserGroupMemberships,
  silentMention,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import { internalSendPrivateMessage, type InternalStreamSendDeps } from "../messages/internal-send";
import { sendWelcomeBotCustomMessage } from "../onboarding/welcome-bot-custom-message";
import { subscribeUsers } from "../subscriptions/subscribe-users";

/**
 * Internal, asked by identity right after it creates a person: Zulip's
 * set_up_streams_for_new_human_user (the invitation's channels that still
 * exist and are not archived, plus the organization's default channels when
 * asked, as always without an invitation), then process_new_human_user's
 * notice to the referrer from the Notification Bot, and Welcome Bot's custom
 * message to the new user (the invitation's text, else the organization's
 * welcome_message_custom_text; none when empty), starred for them as Zulip
 * stars its onboarding direct messages. Which channels those are
 * is messaging's to decide, so identity asks rather than subscribing; it asks
 * on the creating request (not on its realm_user event) so that the
 * subscriptions exist when the creation is answered. Repeating it subscribes
 * nobody twice.
 */
export const setUpNewHumanUserHandler =
  (
    deps: InternalStreamSendDeps & { channels: ChannelDirectory; userGroups: UserGroupMemberships },
  ): Handler<typeof messaging.setUpNewHumanUser> =>
  async (p, ctx) => {
    const realm = requireRealm(ctx);
    const user = (await deps.users.byIds(ctx, realm.id, [p.user_id])).get(p.user_id);
    if (!user?.is_active) throw badRequest(`Invalid user ID: ${p.user_id}`);
    const defaults = p.include_realm_default_subscriptions ? await deps.channels.defaultIds(realm.id) : [];
    const channels = (await deps.channels.byIds(realm.id, [...new Set([...p.stream_ids, ...defaults])])).filter(
      (ch) => !ch.isArchived,
    );
    if (channels.length > 0) await subscribeUsers(deps, ctx, realm.id, channels, [p.user_id]);
    if (p.referrer_id !== null) {
      await internalSendPrivateMessage(
        deps,
        ctx,
        p.referrer_id,
        `${silentMention(user)} accepted your invitation to join Zulip!`,
      );
    }
    const customText = p.welcome_message_custom_text ?? (await deps.settings.get(ctx)).welcome_message_custom_text;
    if (customText) {
      await sendWelcomeBotCustomMessage(deps, ctx, p.user_id, customText, { starredBy: [p.user_id] });
    }
    return {};
  };
