import { badRequest, isGuest, requireUser, type Actor, type HandlerContext, type RealmRef } from "@teamchat/shared";
import type { UserDirectory } from "./user-directory";
import type { UserDoc } from "./user.schema";
import { canSeeRealEmail } from "./user-view";

const noSuchUser = () => badRequest("No such user");

/** Zulip's human_users_only. */
export function requireHuman(actor: Actor): void {
  if (actor.isBot) throw badRequest("This endpoint does not accept bot requests.");
}

/** Zulip's require_member_or_admin: for human non-guests (bots and user groups are managed by them). */
export function requireMemberOrAdmin(actor: Actor): void {
  if (isGuest(actor)) throw badRequest("Not allowed for guest users");
  requireHuman(actor);
}

/** Zulip's access_user_by_id: a user of the organization (system bots live in Zulip's internal realm, so not them). */
export async function accessUserById(users: UserDirectory, realm: RealmRef, userId: number): Promise<UserDoc> {
  const user = await users.byId(realm.id, userId);
  if (!user || user.isSystemBot) throw noSuchUser();
  return user;
}

/** The user id in a dummy address `user<id>@<realm host without port>`, or null. */
export function dummyEmailUserId(email: string, realm: Pick<RealmRef, "host">): number | null {
  const host = realm.host.split(":")[0]!.toLowerCase();
  const at = email.lastIndexOf("@");
  if (at < 0 || email.slice(at + 1).toLowerCase() !== host) return null;
  const m = /^user(\d+)$/i.exec(email.slice(0, at));
  return m ? Number(m[1]) : null;
}

/**
 * Zulip's access_user_by_email: a dummy address finds anyone by its id; a real
 * address only finds users whose email_address_visibility lets the viewer see it.
 */
export async function accessUserByEmail(
  users: UserDirectory,
  realm: RealmRef,
  viewer: Pick<Actor, "userId" | "role">,
  email: string,
): Promise<UserDoc> {
  const dummyId = dummyEmailUserId(email, realm);
  if (dummyId !== null) return accessUserById(users, realm, dummyId);
  const user = await users.byEmail(realm.id, email.trim());
  if (!user || user.isSystemBot || !canSeeRealEmail(viewer, user)) throw noSuchUser();
  return user;
}

/** Zulip's human_users_only: operations about a person's own presence and status are not for bots. */
export function humanUsersOnly(actor: Pick<Actor, "isBot">): void {
  if (actor.isBot) throw badRequest("This endpoint does not accept bot requests.");
}

const callers = new WeakMap<HandlerContext, Promise<UserDoc>>();

/**
 * The caller's own user, read once per request: /register's state parts run
 * in parallel on one request context and several of them need it.
 */
export function caller(users: UserDirectory, ctx: HandlerContext): Promise<UserDoc> {
  let me = callers.get(ctx);
  if (!me) {
    const { realm, actor } = requireUser(ctx);
    me = users.byId(realm.id, actor.userId).then((u) => u!);
    callers.set(ctx, me);
  }
  return me;
}
