import { createHash } from "node:crypto";
import { Role, type Actor, type RealmRef } from "@teamchat/shared";
import { EmailVisibility, type UserDoc } from "./user.schema";

/** The API address: the real one when everyone may see it, else Zulip's dummy `user<id>@<realm host>`. */
export function apiEmail(user: UserDoc, realm: Pick<RealmRef, "host">): string {
  const visibility = (user.settings.email_address_visibility as number | undefined) ?? EmailVisibility.EVERYONE;
  return visibility === EmailVisibility.EVERYONE ? user.deliveryEmail : dummyEmail(user.userId, realm);
}

export const dummyEmail = (userId: number, realm: Pick<RealmRef, "host">): string =>
  `user${userId}@${realm.host.split(":")[0]}`;

/** Gravatar URL, as Zulip serves for users without an uploaded avatar. */
export function avatarUrl(user: UserDoc): string {
  const hash = createHash("md5").update(user.deliveryEmail).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${user.avatarVersion}`;
}

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
