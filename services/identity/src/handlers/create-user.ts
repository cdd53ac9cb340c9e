import {
  Role,
  badRequest,
  identity,
  isAdmin,
  mustBeAdmin,
  requireUser,
  type Handler,
  type EventPublisher,
} from "@teamchat/shared";
import { caller } from "../users/access";
import { createHumanUser } from "../users/create-human-user";
import { checkFullName, isValidEmail } from "../users/full-name";
import type { UserDirectory } from "../users/user-directory";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";

/** POST /users (Zulip's create_user_backend): administrators holding can_create_users; the gateway has messaging set the user up. */
export const createUserHandler =
  (deps: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    userDefaults: RealmUserDefaults;
    passwordHashCost: number;
  }): Handler<typeof identity.createUser> =>
  async ({ email, password, full_name }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (!(await caller(deps.users, ctx)).canCreateUsers) throw badRequest("User not authorized to create users");
    const fullName = checkFullName(full_name);
    if (!isValidEmail(email)) throw badRequest("Bad name or username");
    const { user, followUp } = await createHumanUser(
      deps,
      realm,
      { email, fullName, password, role: Role.MEMBER },
      ctx,
    );
    return { user_id: user.userId, follow_up: followUp };
  };
