import {
  badRequest,
  identityEvents,
  isDuplicateKey,
  messaging,
  type HandlerContext,
  type RealmRef,
  type RoleValue,
} from "@teamchat/shared";
import type { Deps } from "../deps";
import { hashPassword } from "../passwords";
import { userAdded } from "./events";
import type { UserDoc } from "./user.schema";

export interface NewHumanUser {
  email: string;
  fullName: string;
  password: string;
  role: RoleValue;
}

/**
 * What Zulip's set_up_streams_for_new_human_user and process_new_human_user
 * take from an accepted invitation (its PreregistrationUser): its channels,
 * whether the organization's default channels come too, and the referrer to
 * tell (null: nobody).
 */
export interface InvitationSetUp {
  streamIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  referrerToNotify: number | null;
}

/** Without an invitation (POST /users) the new user joins the default channels only. */
const NO_INVITATION: InvitationSetUp = {
  streamIds: [],
  includeRealmDefaultSubscriptions: true,
  referrerToNotify: null,
};

/**
 * Zulip's do_create_user for a person (POST /users, an accepted invitation):
 * the address must be free in the organization; the account starts with the
 * organization's user-settings defaults (create_user_profile copies
 * RealmUserDefault); everyone hears of the new user; then messaging, which
 * owns channels and the Notification Bot, subscribes them and tells the referrer.
 */
export async function createHumanUser(
  {
    users,
    events,
    userDefaults,
    bus,
    passwordHashCost,
  }: Deps<"users" | "events" | "userDefaults" | "bus" | "passwordHashCost">,
  realm: RealmRef,
  { email, fullName, password, role }: NewHumanUser,
  ctx: HandlerContext,
  invitation: InvitationSetUp = NO_INVITATION,
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
      passwordHash: await hashPassword(password, passwordHashCost),
      canCreateUsers: false,
      canChangeUserEmails: false,
      settings: await userDefaults.forNewUser(realm.id),
    });
  } catch (err) {
    if (isDuplicateKey(err)) throw inUse();
    throw err;
  }
  events.publish(identityEvents.realmUser, userAdded(user, realm), ctx.requestId);
  // Asked on the creating request (not on the realm_user event) so that the subscriptions exist when it is answered.
  // The user exists either way: a failure here is logged rather than turned into a failed creation.
  try {
    await bus.request(
      messaging.setUpNewHumanUser,
      {
        user_id: user.userId,
        stream_ids: invitation.streamIds,
        include_realm_default_subscriptions: invitation.includeRealmDefaultSubscriptions,
        referrer_id: invitation.referrerToNotify,
      },
      ctx,
    );
  } catch (err) {
    ctx.log.error({ err, userId: user.userId }, "new user's channels not set up");
  }
  return user;
}
