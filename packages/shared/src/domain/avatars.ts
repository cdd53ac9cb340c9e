/** Gravatar's base URL: avatar URLs that start with it are the ones a client can compute itself. */
export const GRAVATAR_URL = "https://secure.gravatar.com/";

/**
 * Zulip's client_gravatar: a client that computes Gravatar URLs itself gets
 * null instead of them (messages, users, events alike).
 */
export const avatarUrlForClient = (url: string | null, clientGravatar: boolean): string | null =>
  clientGravatar && url?.startsWith(GRAVATAR_URL) ? null : url;

/** Zulip's DEFAULT_AVATAR_SIZE and MEDIUM_AVATAR_SIZE (zerver/lib/thumbnail.py): avatars' sides, in pixels. */
export const DEFAULT_AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;

/** Zulip's MAX_AVATAR_FILE_SIZE_MIB default: the largest avatar image POST /users/me/avatar takes. */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** Zulip's avatar_source: Gravatar's, or uploaded by the user. */
export const AVATAR_SOURCES = ["G", "U"] as const;
export type AvatarSource = (typeof AVATAR_SOURCES)[number];
