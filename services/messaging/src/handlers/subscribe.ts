import { badRequest, isGuest, messaging, requireUser, type Handler } from "@teamchat/shared";
import { canReadContent, groupIncludes } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import { checkChannelName, checkChannelOptions, insertChannel } from "../channels/create-channels";
import type { Deps } from "../deps";
import { subscribeUsers, type SubscribedPair } from "../subscriptions/subscribe-users";

const byUser = (pairs: SubscribedPair[]): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const { userId, channel } of pairs) (out[String(userId)] ??= []).push(channel.name);
  return out;
};

/** POST /users/me/subscriptions: subscribe the user (or `principals`) to channels, creating missing ones. */
export const subscribeHandler =
  (deps: Deps<"channels" | "subscriptions" | "users" | "events" | "settings">): Handler<typeof messaging.subscribe> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const realmId = realm.id;
    const settings = await deps.settings.get(ctx);

    let userIds = [actor.userId];
    if (p.principals?.length) {
      if (typeof p.principals[0] === "number") {
        const ids = p.principals as number[];
        const found = await deps.users.byIds(ctx, realmId, ids);
        const invalid = ids.find((id) => !found.get(id)?.is_active);
        if (invalid !== undefined) throw badRequest(`Invalid user ID: ${invalid}`);
        userIds = ids;
      } else {
        const emails = p.principals as string[];
        const found = await deps.users.byEmails(ctx, realmId, emails);
        if (emails.some((e) => !found.get(e)?.is_active)) throw badRequest("No such user");
        userIds = emails.map((e) => found.get(e)!.user_id);
      }
    }
    userIds = [...new Set(userIds)];
    const othersToo = userIds.some((id) => id !== actor.userId);

    const existing: ChannelDoc[] = [];
    const toCreate: Array<{ name: string; description?: string }> = [];
    for (const spec of p.subscriptions) {
      const name = checkChannelName(spec.name, settings);
      const ch = await deps.channels.byName(realmId, name);
      if (ch) existing.push(ch);
      else if (!toCreate.some((c) => c.name.toLowerCase() === name.toLowerCase())) toCreate.push({ ...spec, name });
    }

    const created: ChannelDoc[] = [];
    if (toCreate.length) {
      await checkChannelOptions(deps, ctx, actor, p);
      for (const spec of toCreate) {
        // A channel created meanwhile by someone else is simply joined.
        const ch = await insertChannel(deps, realmId, actor, settings, spec, p);
        if (ch) created.push(ch);
        else existing.push((await deps.channels.byName(realmId, spec.name))!);
      }
    }

    const mySubs = await deps.subscriptions.subscribedStreamIds(realmId, actor.userId);
    const unauthorized = existing.filter((ch) => !canReadContent(actor, ch, mySubs.has(ch.streamId)));
    if (unauthorized.length && p.authorization_errors_fatal) {
      throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
    }
    const authorized = existing.filter((ch) => !unauthorized.includes(ch));
    if (
      othersToo &&
      authorized.length &&
      (isGuest(actor) || !groupIncludes(settings.can_add_subscribers_group, actor))
    ) {
      throw badRequest("Insufficient permission");
    }

    const { added, already } = await subscribeUsers(deps, ctx, realmId, [...authorized, ...created], userIds, created);
    return {
      subscribed: byUser(added),
      already_subscribed: byUser(already),
      ...(p.authorization_errors_fatal ? {} : { unauthorized: unauthorized.map((c) => c.name) }),
    };
  };
