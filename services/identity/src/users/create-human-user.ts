import {
  badRequest,
  identityEvents,
  isDuplicateKey,
  type EventPublisher,
  type HandlerContext,
  type ParamsOf,
  type RealmRef,
  type RoleValue,
  type messaging,
} from "@teamchat/shared";
import { hashPassword } from "../passwords";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import { userAdded } from "./events";
import type { UserDirectory } from "./user-directory";
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
 * whether the organization's default channels come too, the referrer to
 * tell (null: nobody) and Welcome Bot's custom message (null: the
 * organization's welcome_message_custom_text).
 */
export interface InvitationSetUp {
  streamIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  referrerToNotify: number | null;
  welcomeMessageCustomText: string | null;
}

/** Without an invitation (POST /users) the new user joins the default channels only. */
const NO_INVITATION: InvitationSetUp = {
  streamIds: [],
  includeRealmDefaultSubscriptions: true,
  referrerToNotify: null,
  welcomeMessageCustomText: null,
};

/**
 * Zulip's do_create_user for a person (POST /users, an accepted invitation):
 * the address must be free in the organization; the account starts with the
 * organization's user-settings defaults (create_user_profile copies
 * RealmUserDefault); everyone hears of the new user. Channels and the
 * system bots' messages are messaging's, above identity: the reply's `follow_up`
 * says what to set up (messaging's setUpNewHumanUser), which the gateway asks
 * of messaging before it answers, so the subscriptions exist when the
 * creation is answered.
 */
export async function createHumanUser(
  {
    users,
    events,
    userDefaults,
    passwordHashCost,
  }: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    userDefaults: RealmUserDefaults;
    passwordHashCost: number;
  },
  realm: RealmRef,
  { email, fullName, password, role }: NewHumanUser,
  ctx: HandlerContext,
  invitation: InvitationSetUp = NO_INVITATION,
): Promise<{ user: UserDoc; followUp: ParamsOf<typeof messaging.setUpNewHumanUser> }> {
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
  const followUp = {
    user_id: user.userId,
    stream_ids: invitation.streamIds,
    include_realm_default_subscriptions: invitation.includeRealmDefaultSubscriptions,
    referrer_id: invitation.referrerToNotify,
    welcome_message_custom_text: invitation.welcomeMessageCustomText,
  };
  return { user, followUp };
}
