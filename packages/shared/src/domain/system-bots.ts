/**
 * Zulip's system bots (settings.NOTIFICATION_BOT and friends): accounts the
 * server posts as. Zulip keeps them in its internal realm and lists them in
 * register's `cross_realm_bots`; here each organization has its own copy,
 * kept out of its user lists the same way.
 */
export const NOTIFICATION_BOT = {
  email: "notification-bot@zulip.com",
  fullName: "Notification Bot",
} as const;

/** Zulip's settings.WELCOME_BOT: it sends new users their onboarding direct messages. */
export const WELCOME_BOT = {
  email: "welcome-bot@zulip.com",
  fullName: "Welcome Bot",
} as const;

export type SystemBot = typeof NOTIFICATION_BOT | typeof WELCOME_BOT;

/** Every system bot, in the order register lists them in `cross_realm_bots`. */
export const SYSTEM_BOTS: readonly SystemBot[] = [NOTIFICATION_BOT, WELCOME_BOT];

export const SYSTEM_BOT_EMAILS = [NOTIFICATION_BOT.email, WELCOME_BOT.email] as const;

/** Zulip's UserProfile.DEFAULT_BOT: the type Zulip creates its system bots with. */
export const DEFAULT_BOT_TYPE = 1;

/** Zulip's settings.SYSTEM_BOT_REALM: the sender_realm_str of system bots' messages. */
export const SYSTEM_BOT_REALM = "zulipinternal";
