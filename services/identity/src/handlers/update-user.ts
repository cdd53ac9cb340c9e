import {
  Role,
  badRequest,
  identity,
  identityEvents,
  isAdmin,
  isDuplicateKey,
  isOwner,
  realmConfig,
  requireUser,
  type Actor,
  type HandlerContext,
  type ParamsOf,
  type Handler,
  type RealmRef,
  mustBeOwner,
  type EventPublisher,
  type BusClient,
} from "@teamchat/shared";
import { accessUserByEmail, accessUserById, caller } from "../users/access";
import { personUpdated } from "../users/events";
import { checkFullName, isValidEmail } from "../users/full-name";
import { applyProfileUpdates } from "../users/profile-data";
import type { UserChanges } from "../users/user.repository";
import type { UserDoc } from "../users/user.schema";
import { apiEmail } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";

type Changes = Omit<ParamsOf<typeof identity.updateUser>, "user_id">;

interface UpdateUserDeps {
  users: UserDirectory;
  events: EventPublisher<"identity">;
  bus: BusClient;
}

/** Zulip's update_user_backend, shared by the by-id and by-email routes and PATCH /bots (its role). */
export async function updateUser(
  { users, events, bus }: UpdateUserDeps,
  realm: RealmRef,
  actor: Actor,
  target: UserDoc,
  changes: Changes,
  ctx: HandlerContext,
): Promise<Record<string, never>> {
  // Zulip's can_admin_user: administrators, or the owner of a bot.
  if (!isAdmin(actor) && target.botOwnerId !== actor.userId) throw badRequest("Insufficient permission");
  const { role, full_name, profile_data, new_email } = changes;
  const set: UserChanges = {};

  if (role !== undefined && role !== target.role) {
    if ((role === Role.OWNER || target.role === Role.OWNER) && !isOwner(actor)) throw mustBeOwner();
    if (target.role === Role.OWNER && !target.isBot) {
      if ((await users.activeOwnerCount(realm.id)) === 1)
        throw badRequest("The owner permission cannot be removed from the only organization owner.");
    }
    if (target.role === Role.GUEST && role <= Role.ADMINISTRATOR) {
      throw badRequest("Guests cannot be organization administrators");
    }
    set.role = role;
  }
  if (full_name !== undefined && full_name.trim() !== "" && full_name !== target.fullName) {
    set.fullName = checkFullName(full_name);
  }
  if (profile_data !== undefined) {
    const { custom_fields } = await bus.request(realmConfig.listProfileFields, {}, ctx);
    const exists = async (id: number) => (await users.byId(realm.id, id))?.isActive === true;
    set.profileData = await applyProfileUpdates(target.profileData, profile_data, custom_fields, exists);
  }
  if (new_email !== undefined && new_email.trim().toLowerCase() !== target.deliveryEmail) {
    if (!isOwner(actor)) throw mustBeOwner();
    if (!(await caller(users, ctx)).canChangeUserEmails) throw badRequest("User not authorized to change user emails");
    const email = new_email.trim();
    if (!isValidEmail(email)) throw badRequest("Invalid address.");
    if (await users.byEmail(realm.id, email)) throw badRequest("Already has an account.");
    set.deliveryEmail = email.toLowerCase();
  }
  if (Object.keys(set).length === 0) return {};

  let updated: UserDoc | null;
  try {
    updated = await users.change(realm.id, target.userId, set);
  } catch (err) {
    if (isDuplicateKey(err)) throw badRequest("Already has an account.");
    throw err;
  }
  if (!updated) throw badRequest("No such user");
  if (set.role !== undefined || set.deliveryEmail) {
    events.publish(identityEvents.authInvalidated, { userId: target.userId }, ctx.requestId);
  }
  // One realm_user update per changed property, as Zulip sends them.
  const user_id = target.userId;
  const persons: identityEvents.PersonUpdate[] = [];
  if (set.role !== undefined) persons.push({ user_id, role: set.role });
  if (set.fullName) persons.push({ user_id, full_name: set.fullName });
  if (set.deliveryEmail) persons.push({ user_id, new_email: apiEmail(updated, realm) });
  for (const { id } of set.profileData ? (profile_data ?? []) : []) {
    const stored = updated.profileData[id];
    persons.push({
      user_id,
      custom_profile_field: {
        id,
        value: stored?.value ?? null,
        ...(stored?.rendered_value ? { rendered_value: stored.rendered_value } : {}),
      },
    });
  }
  for (const person of persons)
    events.publish(identityEvents.realmUser, personUpdated(realm.id, person), ctx.requestId);
  return {};
}

export const updateUserHandler =
  (deps: UpdateUserDeps): Handler<typeof identity.updateUser> =>
  async ({ user_id, ...changes }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const target = await accessUserById(deps.users, realm, user_id);
    return updateUser(deps, realm, actor, target, changes, ctx);
  };

export const updateUserByEmailHandler =
  (deps: UpdateUserDeps): Handler<typeof identity.updateUserByEmail> =>
  async ({ email, ...changes }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const target = await accessUserByEmail(deps.users, realm, actor, email);
    return updateUser(deps, realm, actor, target, changes, ctx);
  };
