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

/** Zulip's UserProfile.DEFAULT_BOT: the type Zulip creates its system bots with. */
export const DEFAULT_BOT_TYPE = 1;

/** Zulip's settings.SYSTEM_BOT_REALM: the sender_realm_str of system bots' messages. */
export const SYSTEM_BOT_REALM = "zulipinternal";
