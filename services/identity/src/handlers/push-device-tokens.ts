import { badRequest, requireUser, type Handler, type HandlerContext, type identity } from "@teamchat/shared";
import type { PushDeviceTokenDoc } from "../push-devices/push-device-token.schema";
import { validateToken } from "../push-devices/push-rules";
import { requireHuman } from "../users/access";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";

type Kind = PushDeviceTokenDoc["kind"];

/**
 * Zulip's add_push_device_token: the token is kept whatever the configuration
 * (an iOS token with its app's bundle id).
 */
async function addToken(
  { pushTokens }: { pushTokens: PushDeviceTokenRepository },
  kind: Kind,
  token: string,
  iosAppId: string | null,
  ctx: HandlerContext,
): Promise<Record<string, never>> {
  const { realm, actor } = requireUser(ctx);
  requireHuman(actor);
  validateToken(token, kind);
  await pushTokens.add(realm.id, actor.userId, kind, token, iosAppId);
  return {};
}

/**
 * Zulip's remove_push_device_token: an unknown token is an error only without
 * a bouncer (which Zulip would then ask to forget it).
 */
async function removeToken(
  { pushTokens, pushBouncerUrl }: { pushTokens: PushDeviceTokenRepository; pushBouncerUrl: string | undefined },
  kind: Kind,
  token: string,
  ctx: HandlerContext,
): Promise<Record<string, never>> {
  const { realm, actor } = requireUser(ctx);
  requireHuman(actor);
  validateToken(token, kind);
  const removed = await pushTokens.remove(realm.id, actor.userId, kind, token);
  if (!removed && pushBouncerUrl === undefined) throw badRequest("Token does not exist");
  return {};
}

/** POST /users/me/apns_device_token. */
export const addApnsDeviceTokenHandler =
  (deps: { pushTokens: PushDeviceTokenRepository }): Handler<typeof identity.addApnsDeviceToken> =>
  ({ token, appid }, ctx) =>
    addToken(deps, "apns", token, appid, ctx);

/** POST /users/me/android_gcm_reg_id. */
export const addAndroidRegIdHandler =
  (deps: { pushTokens: PushDeviceTokenRepository }): Handler<typeof identity.addAndroidRegId> =>
  ({ token }, ctx) =>
    addToken(deps, "fcm", token, null, ctx);

/** DELETE /users/me/apns_device_token. */
export const removeApnsDeviceTokenHandler =
  (deps: {
    pushTokens: PushDeviceTokenRepository;
    pushBouncerUrl: string | undefined;
  }): Handler<typeof identity.removeApnsDeviceToken> =>
  ({ token }, ctx) =>
    removeToken(deps, "apns", token, ctx);

/** DELETE /users/me/android_gcm_reg_id. */
export const removeAndroidRegIdHandler =
  (deps: {
    pushTokens: PushDeviceTokenRepository;
    pushBouncerUrl: string | undefined;
  }): Handler<typeof identity.removeAndroidRegId> =>
  ({ token }, ctx) =>
    removeToken(deps, "fcm", token, ctx);
