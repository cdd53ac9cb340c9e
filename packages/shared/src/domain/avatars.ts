/** Gravatar's base URL: avatar URLs that start with it are the ones a client can compute itself. */
export const GRAVATAR_URL = "https://secure.gravatar.com/";

/**
 * Zulip's client_gravatar: a client that computes Gravatar URLs itself gets
 * null instead of them (messages, users, events alike).
 */
export const avatarUrlForClient = (url: string | null, clientGravatar: boolean): string | null =>
  clientGravatar && url?.startsWith(GRAVATAR_URL) ? null : url;
