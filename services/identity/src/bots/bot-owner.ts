import { identityEvents, isAdmin, type RealmRef, type EventPublisher } from "@teamchat/shared";
import { personUpdated } from "../users/events";
import type { UserDoc } from "../users/user.schema";
import { botAdministrators } from "./bot-permissions";
import { toBot } from "./bot-view";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/**
 * Zulip's do_change_bot_owner and send_bot_owner_update_events: a previous
 * owner who is not an administrator loses the bot from realm_bots (delete), a
 * new one who is not gains it (add, with its key); the other administrators
 * see owner_id change; everyone sees the user's bot_owner_id.
 */
export async function changeBotOwner(
  { users, events, keys }: { users: UserDirectory; events: EventPublisher<"identity">; keys: ApiKeyRepository },
  realm: RealmRef,
  bot: UserDoc,
  ownerId: number,
  requestId: string | undefined,
): Promise<UserDoc> {
  const previous = bot.botOwnerId === null ? null : await users.byId(realm.id, bot.botOwnerId);
  const owner = (await users.byId(realm.id, ownerId))!;
  const changed = (await users.change(realm.id, bot.userId, { botOwnerId: ownerId }))!;
  const user_id = bot.userId;
  const publish = (userIds: number[], event: identityEvents.RealmBotEvent) =>
    events.publish(identityEvents.realmBot, { realmId: realm.id, userIds, event }, requestId);
  let audience = await botAdministrators(users, realm.id, changed);
  if (previous && !isAdmin(previous)) {
    publish([previous.userId], { type: "realm_bot", op: "delete", bot: { user_id } });
    audience = audience.filter((id) => id !== previous.userId);
  }
  if (!isAdmin(owner)) {
    const apiKey = (await keys.botKeys(realm.id, [user_id])).get(user_id) ?? "";
    publish([owner.userId], { type: "realm_bot", op: "add", bot: toBot(changed, apiKey, realm) });
    audience = audience.filter((id) => id !== owner.userId);
  }
  publish(audience, { type: "realm_bot", op: "update", bot: { user_id, owner_id: ownerId } });
  events.publish(identityEvents.realmUser, personUpdated(realm.id, { user_id, bot_owner_id: ownerId }), requestId);
  return changed;
}
