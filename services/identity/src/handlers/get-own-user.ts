import { identity, requireUser, type Handler } from "@teamchat/shared";
import type { Identity } from "../context";
import { apiEmail, avatarUrl, roleFlags } from "../users/user-view";

export const getOwnUserHandler =
  ({ users }: Pick<Identity, "users">): Handler<typeof identity.getOwnUser> =>
  async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const user = (await users.byId(realm.id, actor.userId))!;
    return {
      avatar_url: avatarUrl(user),
      avatar_version: user.avatarVersion,
      email: apiEmail(user, realm),
      full_name: user.fullName,
      ...roleFlags(user.role),
      role: user.role,
      is_bot: user.isBot,
      is_active: user.isActive,
      timezone: user.timezone,
      date_joined: user.dateJoined.toISOString(),
      user_id: user.userId,
      delivery_email: user.deliveryEmail,
      profile_data: user.profileData,
    };
  };
