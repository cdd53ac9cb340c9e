import type { MessageRepository } from "../messages/message.repository";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import {
  badRequest,
  isAdmin,
  isGuest,
  messaging,
  requireUser,
  type Actor,
  type Handler,
  type HandlerContext,
  type ParamsOf,
  type ReplyOf,
  type CallContext,
  type UserGroupMemberships,
  type EventPublisher,
} from "@teamchat/shared";
import { canSeeMetadata } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import { groupSetting } from "../channels/channel-view";
import { checkChannelName } from "../channels/create-channels";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { UserDirectory } from "../users/user-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import { directlyControls, principalsToUsers } from "../subscriptions/principals";
import { unsubscribeUsers } from "../subscriptions/unsubscribe-users";

/**
 * Zulip's bulk_can_remove_subscribers_from_streams: administrators always;
 * members of every channel's can_administer_channel_group; otherwise users who
 * may see every channel and are in every one's can_remove_subscribers_group.
 */
async function canRemoveSubscribers(
  deps: { subscriptions: SubscriptionDirectory; userGroups: UserGroupMemberships },
  realmId: number,
  actor: Actor,
  channels: ChannelDoc[],
  ctx: CallContext,
): Promise<boolean> {
  if (isAdmin(actor)) return true;
  if (isGuest(actor)) return false;
  const groups = await deps.userGroups.get(ctx);
  if (channels.every((ch) => groups.includes(groupSetting(ch, "can_administer_channel_group"), actor))) return true;
  const mine = await deps.subscriptions.subscribedStreamIds(realmId, actor.userId);
  return channels.every(
    (ch) =>
      canSeeMetadata(actor, ch, mine.has(ch.streamId), groups) &&
      groups.includes(groupSetting(ch, "can_remove_subscribers_group"), actor),
  );
}

/**
 * DELETE /users/me/subscriptions (Zulip's remove_subscriptions_backend):
 * unsubscribes the user, or `principals`, from channels given by name. Others
 * than oneself (and one's bots) only with the permission above; unknown
 * channels are refused after that check, as Zulip's list_to_streams does.
 */
export const unsubscribeHandler =
  (deps: UnsubscribeDeps): Handler<typeof messaging.unsubscribe> =>
  (p, ctx) =>
    removeSubscriptions(deps, p, ctx);

interface UnsubscribeDeps {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  users: UserDirectory;
  events: EventPublisher<"messaging">;
  settings: RealmSettingsSource;
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  readStates: ReadStateRepository;
  channelMessages: ChannelMessageCache;
  personal: PersonalIndex;
  userGroups: UserGroupMemberships;
}

/** What DELETE /users/me/subscriptions does (PATCH /users/me/subscriptions does it too). */
export async function removeSubscriptions(
  deps: UnsubscribeDeps,
  p: ParamsOf<typeof messaging.unsubscribe>,
  ctx: HandlerContext,
): Promise<ReplyOf<typeof messaging.unsubscribe>> {
  const { realm, actor } = requireUser(ctx);
  const settings = await deps.settings.get(ctx);
  const users = await principalsToUsers(deps, ctx, realm.id, actor, p.principals);
  const unsubscribingOthers = users.some((u) => !directlyControls(actor, u));

  const names = [...new Set(p.subscriptions.map((name) => checkChannelName(name, settings)))];
  const found = await Promise.all(names.map((name) => deps.channels.byName(realm.id, name)));
  const existing = [...new Map(found.flatMap((ch) => (ch ? [[ch.streamId, ch] as const] : []))).values()];
  if (unsubscribingOthers && !(await canRemoveSubscribers(deps, realm.id, actor, existing, ctx))) {
    throw badRequest("Insufficient permission");
  }
  const missing = names.filter((_, i) => !found[i]);
  if (missing.length) throw badRequest(`Channel(s) (${missing.join(", ")}) do not exist`);

  const { removed, notRemoved } = await unsubscribeUsers(deps, ctx, realm.id, existing, users);
  return {
    removed: removed.map((r) => r.channel.name),
    not_removed: notRemoved.map((r) => r.channel.name),
  };
}
