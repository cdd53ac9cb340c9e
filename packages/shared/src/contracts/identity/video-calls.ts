import { z } from "zod";
import { defineContract } from "../../contract";

const callUrl = z.strictObject({ url: z.string() });

/**
 * GET /calls/bigbluebutton/create (Zulip's get_bigbluebutton_url): a join
 * link on this server carrying the signed meeting, which makes its creator
 * the moderator (FL 337) and may turn cameras off (voice_only).
 */
export const createBigBlueButtonCall = defineContract({
  subject: "identity.video_calls.bigbluebutton",
  http: { method: "GET", path: "/calls/bigbluebutton/create", auth: "user" },
  params: z.object({ meeting_name: z.string(), voice_only: z.boolean().default(false) }),
  reply: callUrl,
});

/** POST /calls/zoom/create (Zulip's make_zoom_video_call): needs Zoom OAuth credentials. */
export const createZoomCall = defineContract({
  subject: "identity.video_calls.zoom",
  http: { method: "POST", path: "/calls/zoom/create", auth: "user" },
  params: z.object({ is_video_call: z.boolean().default(true) }),
  reply: callUrl,
});

/** POST /calls/webex/create (Zulip's make_webex_video_call): needs Webex OAuth credentials. */
export const createWebexCall = defineContract({
  subject: "identity.video_calls.webex",
  http: { method: "POST", path: "/calls/webex/create", auth: "user" },
  params: z.object({}),
  reply: callUrl,
});
