import { identityEvents, type RealmRef, type EventPublisher } from "@teamchat/shared";
import { botAdministrators } from "../bots/bot-permissions";
import { publishInvitesChanged } from "../invitations/access";
import { personUpdated } from "../users/events";
import type { UserDoc } from "../users/user.schema";
import type { UserDirectory } from "../users/user-directory";
import type { InvitationRepository } from "../invitations/invitation.repository";

interface ActivationDeps {
  users: UserDirectory;
  events: EventPublisher<"identity">;
}

/**
 * Zulip's do_deactivate_user: the user's active bots first, then the user.
 * Everyone hears realm_user `is_active: false`, a bot's administrators also
 * realm_bot; every gateway drops the user's cached credentials, so the next
 * request with them is refused whichever gateway takes it. Messages stay.
 */
export async function deactivateUser(
  deps: ActivationDeps & { invitations: InvitationRepository },
  realm: RealmRef,
  user: UserDoc,
  requestId: string | undefined,
): Promise<void> {
  if (!user.isActive) return;
  if (!user.isBot) {
    const bots = (await deps.users.all(realm.id)).filter((u) => u.isBot && u.isActive && u.botOwnerId === user.userId);
    for (const bot of bots) await deactivateUser(deps, realm, bot, requestId);
  }
  await setActive(deps, realm, user, false, requestId);
  // Zulip's revoke_invites_generated_by_user: a deactivated user's invitations can no longer be accepted
  if (await deps.invitations.revokeFrom(realm.id, user.userId)) {
    await publishInvitesChanged(deps, realm.id, user.userId, requestId);
  }
}

/** Zulip's do_reactivate_user (what is specific to bots, e.g. their owner, is the caller's). */
export const reactivateUser = (deps: ActivationDeps, realm: RealmRef, user: UserDoc, requestId: string | undefined) =>
  setActive(deps, realm, user, true, requestId);

async function setActive(
  { users, events }: ActivationDeps,
  realm: RealmRef,
  user: UserDoc,
  isActive: boolean,
  requestId: string | undefined,
): Promise<void> {
  // a bot's administrators as they are before the change (its owner may be the one leaving)
  const botAudience = user.isBot ? await botAdministrators(users, realm.id, user) : [];
  await users.change(realm.id, user.userId, { isActive });
  const user_id = user.userId;
  events.publish(identityEvents.authInvalidated, { userId: user_id }, requestId);
  events.publish(identityEvents.realmUser, personUpdated(realm.id, { user_id, is_active: isActive }), requestId);
  if (user.isBot) {
    events.publish(
      identityEvents.realmBot,
      {
        realmId: realm.id,
        userIds: botAudience,
        event: { type: "realm_bot", op: "update", bot: { user_id, is_active: isActive } },
      },
      requestId,
    );
  }
}
