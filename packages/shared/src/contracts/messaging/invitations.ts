import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { intList } from "../common";

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
