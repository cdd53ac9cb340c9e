import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int, intList } from "../common";

/**
 * Internal (identity's POST /invites and /invites/multiuse): Zulip's
 * access_streams_for_invite for the acting user. Every channel must be one the
 * user may read ("Invalid channel ID {id}. No invites were sent.") and either
 * a default channel or one they may add subscribers to.
 */
export const checkInvitationChannels = defineContract({
  subject: "messaging.invitations.check_channels",
  params: z.object({ stream_ids: intList }),
  reply: emptyReply,
});

/**
 * Internal (identity, when an invitation is accepted; no acting user): Zulip's
 * set_up_streams_for_new_human_user and the referrer's notice. Subscribes the
 * new user to the invitation's channels that still exist (and the
 * organization's default channels when asked); `referrer_id` is the user to
 * tell that the invitation was accepted, or null.
 */
export const setUpInvitedUser = defineContract({
  subject: "messaging.invitations.set_up_user",
  params: z.object({
    user_id: int,
    stream_ids: intList,
    include_realm_default_subscriptions: z.boolean(),
    referrer_id: int.nullable(),
  }),
  reply: z.strictObject({ subscribed_stream_ids: intList }),
});
