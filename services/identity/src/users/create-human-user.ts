import {
  Role,
  badRequest,
  identityEvents,
  isDuplicateKey,
  type HandlerContext,
  type RealmRef,
  type RoleValue,
} from "@teamchat/shared";
import type { Deps } from "../deps";
import { hashPassword } from "../passwords";
import { toUserResource } from "./user-view";
import type { UserDoc } from "./user.schema";

export interface NewHumanUser {
  email: string;
  fullName: string;
  password: string;
  role: RoleValue;
}

/**
 * Zulip's do_create_user for a person (POST /users, an accepted invitation):
 * the address must be free in the organization; everyone hears of the new user.
 */
export async function createHumanUser(
  { users, events }: Deps<"users" | "events">,
  realm: RealmRef,
  { email, fullName, password, role }: NewHumanUser,
  ctx: Pick<HandlerContext, "requestId">,
): Promise<UserDoc> {
  const inUse = () => badRequest(`Email '${email}' already in use`);
  if (await users.byEmail(realm.id, email)) throw inUse();
  let user;
  try {
    user = await users.insert({
      realmId: realm.id,
      deliveryEmail: email,
      fullName,
      role,
      isBot: false,
      botType: null,
      botOwnerId: null,
      dateJoined: new Date(),
      timezone: "",
      passwordHash: await hashPassword(password),
      canCreateUsers: false,
      canChangeUserEmails: false,
    });
  } catch (err) {
    if (isDuplicateKey(err)) throw inUse();
    throw err;
  }
  // Everyone may learn of a new user; the default visibility shows the real address to all.
  const person = toUserResource(user, { userId: 0, role: Role.GUEST }, realm, {
    client_gravatar: false,
    include_custom_profile_fields: true,
  });
  events.publish(
    identityEvents.realmUser,
    { realmId: realm.id, userIds: "all", event: { type: "realm_user", op: "add", person } },
    ctx.requestId,
  );
  return user;
}
