import {
  identityEvents,
  requireUser,
  type Handler,
  type identity,
  type EventPublisher,
  type RealmEmojiSource,
} from "@teamchat/shared";
import { checkStatusChange, NO_STATUS } from "../status/user-status";
import { caller, humanUsersOnly } from "../users/access";
import { ownSettingChanged } from "../users/events";
import type { UserChanges } from "../users/user.repository";
import type { UserDirectory } from "../users/user-directory";
import type { Presences } from "../presence/presences";

/**
 * POST /users/me/status (Zulip's update_user_status_backend and
 * do_update_user_status): only what is passed changes; `away` sets
 * presence_enabled to its inverse, as a settings change would. The
 * user_status event carries what was passed, to everyone.
 */
export const updateStatusHandler =
  ({
    users,
    events,
    presence,
    realmEmoji,
  }: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    presence: Presences;
    realmEmoji: RealmEmojiSource;
  }): Handler<typeof identity.updateStatus> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    humanUsersOnly(actor);
    const { text, emoji } = checkStatusChange(p, p.emoji_name ? await realmEmoji.get(ctx) : {});
    const user = await caller(users, ctx);
    const set: UserChanges = {
      status: { ...(user.status ?? NO_STATUS), ...(text !== undefined && { text }), ...emoji },
    };
    const presenceEnabled = p.away === undefined ? undefined : !p.away;
    if (presenceEnabled !== undefined) set.settings = { presence_enabled: presenceEnabled };
    const updated = (await users.change(realm.id, user.userId, set))!;

    if (presenceEnabled !== undefined) {
      events.publish(
        identityEvents.userSettings,
        ownSettingChanged(realm.id, user.userId, "presence_enabled", presenceEnabled),
        ctx.requestId,
      );
      await presence.settingChanged(realm, updated, presenceEnabled, ctx);
    }
    const event = {
      type: "user_status",
      user_id: user.userId,
      ...(p.away !== undefined && { away: p.away }),
      ...(text !== undefined && { status_text: text }),
      ...(emoji && { emoji_name: emoji.emojiName, emoji_code: emoji.emojiCode, reaction_type: emoji.reactionType }),
    } as const;
    events.publish(identityEvents.userStatus, { realmId: realm.id, userIds: "all", event }, ctx.requestId);
    return {};
  };
