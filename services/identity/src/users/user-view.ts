import { createHash } from "node:crypto";
import { GRAVATAR_URL, MEDIUM_AVATAR_SIZE, Role, type Actor, type RealmRef, type identity } from "@teamchat/shared";
import { settingsOf } from "./settings";
import { EmailVisibility, type UserDoc } from "./user.schema";

/** The API address: the real one when everyone may see it, else Zulip's dummy `user<id>@<realm host>`. */
export function apiEmail(user: UserDoc, realm: Pick<RealmRef, "host">): string {
  return settingsOf(user).email_address_visibility === EmailVisibility.EVERYONE
    ? user.deliveryEmail
    : dummyEmail(user.userId, realm);
}

export const dummyEmail = (userId: number, realm: Pick<RealmRef, "host">): string =>
  `user${userId}@${realm.host.split(":")[0]}`;

/** Zulip's get_gravatar_url: the identicon of an address (lowercased, as gravatar_hash does), 500 px for `medium`. */
export function gravatarUrl(email: string, version: number, medium = false): string {
  const hash = createHash("md5").update(email.toLowerCase()).digest("hex");
  return `${GRAVATAR_URL}avatar/${hash}?d=identicon${medium ? `&s=${MEDIUM_AVATAR_SIZE}` : ""}&version=${version}`;
}

/** Where an uploaded avatar's image is served (Zulip's local upload backend's get_avatar_url). */
export const uploadedAvatarPath = (realmId: number, path: string, medium: boolean): string =>
  `/user_avatars/${realmId}/${path}${medium ? "-medium" : ""}.png`;

/**
 * Zulip's avatar_url: the uploaded avatar's image, or else the Gravatar of the
 * real address; versioned, so that a new avatar is a new URL for caches.
 */
export function avatarUrl(user: UserDoc, medium = false): string {
  if (user.avatarSource === "U" && user.avatarPath !== undefined) {
    return `${uploadedAvatarPath(user.realmId, user.avatarPath, medium)}?version=${user.avatarVersion}`;
  }
  return gravatarUrl(user.deliveryEmail, user.avatarVersion, medium);
}

/** What a client that computes Gravatar URLs itself is not sent (client_gravatar). */
const hasGravatar = (user: UserDoc): boolean => user.avatarSource !== "U";

export function toActor(user: UserDoc, realm: Pick<RealmRef, "host">): Actor {
  return {
    userId: user.userId,
    realmId: user.realmId,
    email: apiEmail(user, realm),
    deliveryEmail: user.deliveryEmail,
    fullName: user.fullName,
    role: user.role,
    isBot: user.isBot,
  };
}

export const roleFlags = (role: number) => ({
  is_owner: role === Role.OWNER,
  is_admin: role <= Role.ADMINISTRATOR,
  is_guest: role === Role.GUEST,
});

/** Roles that may see a real address, per visibility (Zulip's ROLE_TO_ACCESSIBLE_EMAIL_ADDRESS_VISIBILITY_IDS). */
const VISIBLE_TO: Record<number, number[]> = {
  [EmailVisibility.EVERYONE]: [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST],
  [EmailVisibility.MEMBERS]: [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER],
  [EmailVisibility.MODERATORS]: [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR],
  [EmailVisibility.ADMINS]: [Role.OWNER, Role.ADMINISTRATOR],
  [EmailVisibility.NOBODY]: [],
};

/**
 * The visibility settings whose addresses a role may see, as a key: viewers of
 * one key see every other user's User resource alike (see toUserResource).
 * Owners and administrators share one.
 */
export const emailAccessKey = (role: number): string =>
  Object.keys(VISIBLE_TO)
    .filter((visibility) => VISIBLE_TO[Number(visibility)]!.includes(role))
    .join(",");

/** May `viewer` see `target`'s real address? Bots' addresses are always visible, and one's own. */
export function canSeeRealEmail(viewer: Pick<Actor, "userId" | "role">, target: UserDoc): boolean {
  if (target.isBot || viewer.userId === target.userId) return true;
  return (VISIBLE_TO[settingsOf(target).email_address_visibility] ?? []).includes(viewer.role);
}

/** The request parameters that shape a User resource, as Zulip names them. */
export interface UserViewOptions {
  client_gravatar: boolean;
  include_custom_profile_fields: boolean;
}

/**
 * Zulip's User resource of `target` as `viewer` sees it (zerver/lib/users.py
 * format_user_row). The viewer matters only through canSeeRealEmail (Zulip's
 * can_access_delivery_email): delivery_email, and avatar_url under
 * client_gravatar; `email` is the target's own choice (its API email).
 */
export function toUserResource(
  target: UserDoc,
  viewer: Pick<Actor, "userId" | "role">,
  realm: Pick<RealmRef, "host">,
  opts: UserViewOptions,
): identity.UserResource {
  const visible = canSeeRealEmail(viewer, target);
  return {
    user_id: target.userId,
    delivery_email: visible ? target.deliveryEmail : null,
    email: apiEmail(target, realm),
    full_name: target.fullName,
    date_joined: target.dateJoined.toISOString(),
    is_active: target.isActive,
    ...roleFlags(target.role),
    is_bot: target.isBot,
    bot_type: target.botType,
    bot_owner_id: target.botOwnerId,
    role: target.role,
    timezone: target.timezone,
    // Clients compute gravatar URLs themselves when they know the address (client_gravatar).
    avatar_url: opts.client_gravatar && visible && hasGravatar(target) ? null : avatarUrl(target),
    avatar_version: target.avatarVersion,
    ...(opts.include_custom_profile_fields && !target.isBot ? { profile_data: target.profileData } : {}),
  };
}

/** GET /users/me: the caller as they see themselves. */
export const toOwnUser = (user: UserDoc, realm: Pick<RealmRef, "host">): identity.OwnUser => ({
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
});

/** What other services need to know of a user (identity.getUserSummaries). */
export const toUserSummary = (user: UserDoc, realm: Pick<RealmRef, "host">): identity.UserSummary => ({
  user_id: user.userId,
  email: apiEmail(user, realm),
  delivery_email: user.deliveryEmail,
  full_name: user.fullName,
  role: user.role,
  is_active: user.isActive,
  is_bot: user.isBot,
  is_system_bot: user.isSystemBot === true,
  bot_owner_id: user.botOwnerId,
  avatar_url: avatarUrl(user),
  avatar_version: user.avatarVersion,
  receives_typing_notifications: settingsOf(user).receives_typing_notifications,
  send_read_receipts: settingsOf(user).send_read_receipts,
  enable_drafts_synchronization: settingsOf(user).enable_drafts_synchronization,
  translate_emoticons: settingsOf(user).translate_emoticons,
});

/**
 * register's cross_realm_bots entry (Zulip's get_cross_realm_dicts): the bot
 * as it sees itself (real address, avatar URL), without an owner.
 */
export function toCrossRealmBot(bot: UserDoc, realm: Pick<RealmRef, "host">): identity.CrossRealmBot {
  const { profile_data: _none, ...user } = toUserResource(bot, bot, realm, {
    client_gravatar: false,
    include_custom_profile_fields: false,
  });
  return { ...user, avatar_url: avatarUrl(bot), is_system_bot: true, bot_type: bot.botType!, bot_owner_id: null };
}
