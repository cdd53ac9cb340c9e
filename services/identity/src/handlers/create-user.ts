import {
  Role,
  badRequest,
  identity,
  isAdmin,
  isDuplicateKey,
  identityEvents,
  messaging,
  mustBeAdmin,
  requireUser,
  type Handler,
} from "@teamchat/shared";
import type { Deps } from "../deps";
import { hashPassword } from "../passwords";
import { caller } from "../users/access";
import { checkFullName, isValidEmail } from "../users/full-name";
import { userAdded } from "../users/events";

/** POST /users (Zulip's create_user_backend): administrators holding can_create_users. */
export const createUserHandler =
  ({
    users,
    events,
    userDefaults,
    bus,
  }: Deps<"users" | "events" | "userDefaults" | "bus">): Handler<typeof identity.createUser> =>
  async ({ email, password, full_name }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (!(await caller(users, ctx)).canCreateUsers) throw badRequest("User not authorized to create users");
    const fullName = checkFullName(full_name);
    if (!isValidEmail(email)) throw badRequest("Bad name or username");
    const inUse = () => badRequest(`Email '${email}' already in use`);
    if (await users.byEmail(realm.id, email)) throw inUse();
    let user;
    try {
      user = await users.insert({
        realmId: realm.id,
        deliveryEmail: email,
        fullName,
        role: Role.MEMBER,
        isBot: false,
        botType: null,
        botOwnerId: null,
        dateJoined: new Date(),
        timezone: "",
        passwordHash: await hashPassword(password),
        canCreateUsers: false,
        canChangeUserEmails: false,
        // Zulip's create_user_profile copies the organization's RealmUserDefault
        settings: await userDefaults.forNewUser(realm.id),
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw inUse();
      throw err;
    }
    events.publish(identityEvents.realmUser, userAdded(user, realm), ctx.requestId);
    // The new user joins the organization's default channels: messaging owns them and decides which they are.
    // The user exists either way: a failure here is logged rather than turned into a failed creation.
    try {
      await bus.request(messaging.subscribeToDefaultStreams, { user_id: user.userId }, ctx);
    } catch (err) {
      ctx.log.error({ err, userId: user.userId }, "new user not subscribed to the default channels");
    }
    return { user_id: user.userId };
  };
