/**
 * What this server's realm export and its import share of Zulip's export
 * format (zerver/lib/export.py): recipient types and the user message flags'
 * bit order.
 */
/** Zulip's Recipient types. */
export const RecipientType = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;

/** Zulip's UserMessage.ALL_FLAGS, in bit order: an export carries a row's flags as this mask (flags_mask). */
export const USER_MESSAGE_FLAGS = [
  "read",
  "starred",
  "collapsed",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "group_mentioned",
  "force_expand",
  "force_collapse",
  "has_alert_word",
  "historical",
  "is_private",
  "active_mobile_push_notification",
] as const;

export const flagsMask = (flags: string[]): number =>
  flags.reduce((mask, f) => {
    const bit = (USER_MESSAGE_FLAGS as readonly string[]).indexOf(f);
    return bit < 0 ? mask : mask | (1 << bit);
  }, 0);

export const flagsOfMask = (mask: number): string[] => USER_MESSAGE_FLAGS.filter((_f, bit) => mask & (1 << bit));
