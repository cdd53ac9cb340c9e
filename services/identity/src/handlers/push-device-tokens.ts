import { badRequest, requireUser, type Handler, type HandlerContext, type identity } from "@teamchat/shared";
import type { PushDeviceTokenDoc } from "../push-devices/push-device-token.schema";
import { validateToken } from "../push-devices/push-rules";
import { requireHuman } from "../users/access";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";
import type { PushNotifier } from "../push-notifications/push-notifier";

type Kind = PushDeviceTokenDoc["kind"];

interface TokenDeps {
  pushTokens: PushDeviceTokenRepository;
  /** undefined: push is not configured */
  notifier: PushNotifier | undefined;
}

/**
 * Zulip's add_push_device_token: the token is kept whatever the configuration
 * (an iOS token with its app's bundle id), and registered with the push
 * notification service when there is one.
 */
async function addToken(
  { pushTokens, notifier }: TokenDeps,
  kind: Kind,
  token: string,
  iosAppId: string | null,
  ctx: HandlerContext,
): Promise<Record<string, never>> {
  const { realm, actor } = requireUser(ctx);
  requireHuman(actor);
  validateToken(token, kind);
  await pushTokens.add(realm.id, actor.userId, kind, token, iosAppId);
  await notifier?.registerToken(realm.id, actor.userId, kind, token, iosAppId);
  return {};
}

/**
 * Zulip's remove_push_device_token: an unknown token is an error only without
 * a bouncer, which is asked to forget it.
 */
async function removeToken(
  { pushTokens, notifier }: TokenDeps,
  kind: Kind,
  token: string,
  ctx: HandlerContext,
): Promise<Record<string, never>> {
  const { realm, actor } = requireUser(ctx);
  requireHuman(actor);
  validateToken(token, kind);
  const removed = await pushTokens.remove(realm.id, actor.userId, kind, token);
  if (!notifier) {
    if (!removed) throw badRequest("Token does not exist");
    return {};
  }
  await notifier.unregisterToken(realm.id, actor.userId, kind, token);
  return {};
}

/** POST /users/me/apns_device_token. */
export const addApnsDeviceTokenHandler =
  (deps: TokenDeps): Handler<typeof identity.addApnsDeviceToken> =>
  ({ token, appid }, ctx) =>
    addToken(deps, "apns", token, appid, ctx);

/** POST /users/me/android_gcm_reg_id. */
export const addAndroidRegIdHandler =
  (deps: TokenDeps): Handler<typeof identity.addAndroidRegId> =>
  ({ token }, ctx) =>
    addToken(deps, "fcm", token, null, ctx);

/** DELETE /users/me/apns_device_token. */
export const removeApnsDeviceTokenHandler =
  (deps: TokenDeps): Handler<typeof identity.removeApnsDeviceToken> =>
  ({ token }, ctx) =>
    removeToken(deps, "apns", token, ctx);

/** DELETE /users/me/android_gcm_reg_id. */
export const removeAndroidRegIdHandler =
  (deps: TokenDeps): Handler<typeof identity.removeAndroidRegId> =>
  ({ token }, ctx) =>
    removeToken(deps, "fcm", token, ctx);
