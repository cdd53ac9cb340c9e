import { escapeAttribute, escapeText } from "@teamchat/shared";

/** A page as Zulip's portico templates make it, reduced to its content. */
const page = (title: string, body: string) =>
  `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title} | Zulip</title></head>\n<body>\n${body}\n</body>\n</html>\n`;

/** Zulip's zerver/unsubscribe_success.html. */
export const unsubscribedPage = ({
  subscription_type,
  realm_uri,
}: {
  subscription_type: string;
  realm_uri: string;
}): string =>
  page(
    "Email settings updated",
    `<h1>Email settings updated</h1>\n` +
      `<p>We've updated your email subscription settings, and you won't get ${escapeText(subscription_type)} emails anymore.</p>\n` +
      `<p>To undo this change or review your other subscription settings, please visit your <a href="${escapeAttribute(realm_uri)}/#settings">Zulip Settings page</a>.</p>`,
  );

/** Zulip's zerver/unsubscribe_link_error.html, without its "email us" line (this server names no support address). */
export const UNKNOWN_UNSUBSCRIBE_PAGE = page(
  "Error unsubscribing email",
  "<h1>Unknown email unsubscribe request</h1>\n" +
    "<p>Hi there! It looks like you tried to unsubscribe from something, but we don't recognize the URL.</p>\n" +
    "<p>Please double-check that you have the full URL and try again.</p>",
);
