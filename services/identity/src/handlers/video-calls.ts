import { createHmac, randomInt } from "node:crypto";
import { badRequest, requireUser, type Handler, type HandlerContext, type identity } from "@teamchat/shared";
import type { CallSigningKeyRepository } from "../video-calls/call-signing-key.repository";

/** The form of Django's Signer.sign_object: base64url JSON, ":", base64url HMAC-SHA256 of it. */
function signObject(key: string, value: object): string {
  const payload = Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${payload}:${createHmac("sha256", key).update(payload).digest("base64url")}`;
}

/**
 * GET /calls/bigbluebutton/create (Zulip's get_bigbluebutton_url): a random
 * meeting id, and the meeting signed so that no one can change the link to
 * reach another meeting on the same BigBlueButton server.
 */
export const createBigBlueButtonCallHandler =
  ({ signingKeys }: { signingKeys: CallSigningKeyRepository }): Handler<typeof identity.createBigBlueButtonCall> =>
  async ({ meeting_name, voice_only }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const signed = signObject(await signingKeys.keyOf(realm.id), {
      meeting_id: `zulip-${randomInt(100_000_000_000, 1_000_000_000_000)}`,
      name: meeting_name,
      lock_settings_disable_cam: voice_only,
      moderator: actor.userId,
    });
    return { url: `/calls/bigbluebutton/join?bigbluebutton=${signed}` };
  };

/**
 * Zoom's and Webex's calls are made through the user's OAuth grant to them,
 * with this server's client credentials: none are configured here, so every
 * call gets Zulip's answer for that case (OAuthVideoCallProvider's session).
 */
const notConfigured =
  (provider: string) =>
  async (_params: unknown, ctx: HandlerContext): Promise<never> => {
    requireUser(ctx);
    throw badRequest(`${provider} credentials have not been configured`);
  };

/** POST /calls/zoom/create (Zulip's make_zoom_video_call). */
export const createZoomCallHandler: Handler<typeof identity.createZoomCall> = notConfigured("Zoom");

/** POST /calls/webex/create (Zulip's make_webex_video_call). */
export const createWebexCallHandler: Handler<typeof identity.createWebexCall> = notConfigured("Webex");
