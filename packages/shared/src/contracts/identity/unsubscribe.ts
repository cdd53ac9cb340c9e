import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

/**
 * The kinds of mail a one-click link turns off, by the name its URL carries,
 * with the name its page gives them (Zulip's email_unsubscribers). This server
 * sends no welcome or marketing mail; their links work as Zulip's do.
 */
export const UNSUBSCRIBE_EMAIL_TYPES = {
  missed_messages: "missed messages",
  welcome: "welcome",
  digest: "digest",
  login: "login",
  marketing: "marketing",
} as const;
export type UnsubscribeEmailType = keyof typeof UNSUBSCRIBE_EMAIL_TYPES;

/**
 * Internal: the user's one-click unsubscribe link for a kind of mail, which
 * needs no login (Zulip's one_click_unsubscribe_link), for the mail's
 * List-Unsubscribe header.
 */
export const getUnsubscribeLink = defineContract({
  subject: "identity.unsubscribe.link",
  params: z.object({
    user_id: int,
    email_type: z.enum(Object.keys(UNSUBSCRIBE_EMAIL_TYPES) as [UnsubscribeEmailType, ...UnsubscribeEmailType[]]),
  }),
  reply: z.object({ url: z.string() }),
});

/**
 * Internal: what the gateway's GET or POST /accounts/unsubscribe/{email_type}/{confirmation_key}
 * (outside /api/v1, a page) asks. The link's user no longer gets that kind of
 * mail (Zulip's email_unsubscribe); an unknown kind or key is BAD_REQUEST.
 */
export const unsubscribeByLink = defineContract({
  subject: "identity.unsubscribe.by_link",
  params: z.object({ email_type: z.string(), confirmation_key: z.string() }),
  reply: z.object({ subscription_type: z.string(), realm_uri: z.string() }),
});
