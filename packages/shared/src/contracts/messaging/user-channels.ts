import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/**
 * GET /users/{user_id}/channels (Zulip's get_user_channels, FL 440; bots FL
 * 458): the channels the user is subscribed to, of those whose subscribers
 * the caller may see.
 */
export const getUserChannels = defineContract({
  subject: "messaging.subscriptions.of_user",
  http: { method: "GET", path: "/users/{user_id}/channels", auth: "user" },
  params: z.object({ user_id: int }),
  reply: z.strictObject({ subscribed_channel_ids: intList }),
});
