import { RawJson, Role, SYSTEM_BOTS, identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import { caller } from "./access";
import type { RealmUserLists } from "./realm-user-lists";
import { apiEmail, avatarUrl, roleFlags, toCrossRealmBot } from "./user-view";
import type { UserDirectory } from "./user-directory";

/**
 * The users of the organization and who the caller is (Zulip's realm_user
 * state). The user lists, the bulk of it, come serialized and shared by the
 * callers who see them alike (RealmUserLists).
 */
export const usersState = ({ users, lists }: { users: UserDirectory; lists: RealmUserLists }): StateProvider[] => [
  provideState(identity.realmUserState, async (params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [me, systemBots] = await Promise.all([
      caller(users, ctx),
      Promise.all(SYSTEM_BOTS.map((bot) => users.systemBot(realm.id, bot))),
    ]);
    const opts = { client_gravatar: params.client_gravatar, include_custom_profile_fields: true };
    return RawJson.merge([
      // realm_users, realm_non_active_users
      await lists.get(realm, actor, me, opts),
      {
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
      },
    ]);
  }),
];
