import { Role, SYSTEM_BOTS, identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import { caller } from "./access";
import { apiEmail, avatarUrl, roleFlags, toCrossRealmBot, toUserResource } from "./user-view";
import type { UserDirectory } from "./user-directory";

/** The users of the organization and who the caller is (Zulip's realm_user state). */
export const usersState = ({ users }: { users: UserDirectory }): StateProvider[] => [
  provideState(identity.realmUserState, async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [all, me, systemBots] = await Promise.all([
      users.all(realm.id),
      caller(users, ctx),
      Promise.all(SYSTEM_BOTS.map((bot) => users.systemBot(realm.id, bot))),
    ]);
    const opts = { client_gravatar: params.client_gravatar, include_custom_profile_fields: true };
    const view = all.map((u) => toUserResource(u, actor, realm, opts));
    return {
      realm_users: view.filter((u) => u.is_active),
      realm_non_active_users: view.filter((u) => !u.is_active),
      cross_realm_bots: systemBots.map((bot) => toCrossRealmBot(bot, realm)),
      avatar_source: me.avatarSource ?? "G",
      avatar_url: avatarUrl(me),
      avatar_url_medium: avatarUrl(me, true),
      ...roleFlags(me.role),
      is_moderator: me.role === Role.MODERATOR,
      user_id: me.userId,
      email: apiEmail(me, realm),
      delivery_email: me.deliveryEmail,
      full_name: me.fullName,
    };
  }),
];
