import { z } from "zod";
import { roleSchema } from "../../actor";
import { defineContract, emptyReply } from "../../contract";
import { int, intList } from "../common";
import { setUpNewHumanUser } from "../messaging/channel-admin";

/** Zulip's Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
export const WELCOME_MESSAGE_CUSTOM_TEXT_MAX_LENGTH = 8000;

/** Zulip's Invite object of GET /invites: an email invitation (`email`) or a reusable link (`link_url`). */
export const inviteSchema = z.strictObject({
  id: int,
  invited_by_user_id: int,
  invited: int,
  expiry_date: int.nullable(),
  invited_as: roleSchema,
  email: z.string().optional(),
  notify_referrer_on_join: z.boolean().optional(),
  link_url: z.string().optional(),
  is_multiuse: z.boolean(),
});
export type Invite = z.infer<typeof inviteSchema>;

/** What both kinds of invitation take (Zulip's invite_users_backend / generate_multiuse_invite_backend). */
const invitationParams = {
  /** null = never expires; omitted = the server's INVITATION_LINK_VALIDITY_MINUTES */
  invite_expires_in_minutes: int.nullable().optional(),
  invite_as: roleSchema.default(400),
  group_ids: intList.optional(),
  include_realm_default_subscriptions: z.boolean().default(false),
  welcome_message_custom_text: z.string().max(WELCOME_MESSAGE_CUSTOM_TEXT_MAX_LENGTH).nullable().default(null),
};

/** POST /invites (Zulip's invite_users_backend): email invitations; partial failures answer INVITATION_FAILED. */
export const sendInvites = defineContract({
  subject: "identity.invites.send",
  http: { method: "POST", path: "/invites", auth: "user" },
  params: z.object({
    invitee_emails: z.string(),
    stream_ids: intList,
    notify_referrer_on_join: z.boolean().default(true),
    ...invitationParams,
  }),
  reply: emptyReply,
});

/** GET /invites: unexpired invitations the user may manage (administrators: all of the organization's). */
export const getInvites = defineContract({
  subject: "identity.invites.list",
  http: { method: "GET", path: "/invites", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ invites: z.array(inviteSchema) }),
});

/** DELETE /invites/{invite_id}: revoke an email invitation. */
export const revokeInvite = defineContract({
  subject: "identity.invites.revoke",
  http: { method: "DELETE", path: "/invites/{invite_id}", auth: "user" },
  params: z.object({ invite_id: int }),
  reply: emptyReply,
});

/** POST /invites/{invite_id}/resend: send an email invitation's mail again. */
export const resendInvite = defineContract({
  subject: "identity.invites.resend",
  http: { method: "POST", path: "/invites/{invite_id}/resend", auth: "user" },
  params: z.object({ invite_id: int }),
  reply: emptyReply,
});

/** POST /invites/multiuse: a reusable invitation link. */
export const createInviteLink = defineContract({
  subject: "identity.invites.create_link",
  http: { method: "POST", path: "/invites/multiuse", auth: "user" },
  params: z.object({ stream_ids: intList.default([]), ...invitationParams }),
  reply: z.strictObject({ invite_link: z.string() }),
});

/** DELETE /invites/multiuse/{invite_id}: revoke a reusable link. */
export const revokeInviteLink = defineContract({
  subject: "identity.invites.revoke_link",
  http: { method: "DELETE", path: "/invites/multiuse/{invite_id}", auth: "user" },
  params: z.object({ invite_id: int }),
  reply: emptyReply,
});

/**
 * This server's own operation (Zulip accepts invitations on its web pages):
 * redeems an invitation link (`<realm url>/join/<key>/`, or the key alone) and
 * creates the account. A reusable link needs `email`; an email invitation is
 * for its own address. Answers the new user's id, API email and a fresh API key;
 * the gateway then has messaging set the new person up (setUpNewHumanUser).
 */
export const acceptInvitation = defineContract({
  subject: "identity.invites.accept",
  http: { method: "POST", path: "/teamchat/invitations/accept", auth: "none", followUp: setUpNewHumanUser },
  params: z.object({
    key: z.string(),
    full_name: z.string(),
    password: z.string().min(1),
    email: z.string().optional(),
  }),
  reply: z.strictObject({
    user_id: int,
    email: z.string(),
    api_key: z.string(),
    follow_up: setUpNewHumanUser.params,
  }),
});
