import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

/** A muted user as register's muted_users and the muted_users event list them (Zulip's get_user_mutes). */
export const mutedUserSchema = z.strictObject({ id: int, timestamp: int });
export type MutedUser = z.infer<typeof mutedUserSchema>;

/** POST /users/me/muted_users/{muted_user_id} (Zulip's mute_user, FL 48). */
export const muteUser = defineContract({
  subject: "messaging.muted_users.mute",
  http: { method: "POST", path: "/users/me/muted_users/{muted_user_id}", auth: "user" },
  params: z.object({ muted_user_id: int }),
  reply: emptyReply,
});

/** DELETE /users/me/muted_users/{muted_user_id} (Zulip's unmute_user). */
export const unmuteUser = defineContract({
  subject: "messaging.muted_users.unmute",
  http: { method: "DELETE", path: "/users/me/muted_users/{muted_user_id}", auth: "user" },
  params: z.object({ muted_user_id: int }),
  reply: emptyReply,
});
