/** The personal flags of a user's row of a message, as Zulip names and orders them. */
import { messaging } from "@teamchat/shared";

/**
 * Personal flags other than "read" that a message can have, in the order
 * Zulip lists them (its UserMessage flag bits); "historical" is not stored:
 * it marks a message the user never received. "wildcard_mentioned" is no
 * flag bit of Zulip's: it lists it last, with either wildcard flag, for
 * clients older than feature level 224 (zerver/lib/message.py); stored with
 * them, every reader of a row's flags shows it as Zulip does.
 */
export const STORED_FLAGS = [
  "starred",
  "collapsed",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "has_alert_word",
  "wildcard_mentioned",
] as const;

/** A row's flags in Zulip's order: "read" first, then STORED_FLAGS'. */
export const inFlagOrder = (flags: readonly string[]): string[] => [
  ...(flags.includes("read") ? ["read"] : []),
  ...STORED_FLAGS.filter((f) => flags.includes(f)),
];

/**
 * The flags a channel-wide wildcard mention (@**all**) gives each receiver of
 * a channel message. A message received by subscription stores that it has
 * one (MessageDoc.streamWildcard) instead of a row per receiver: the flags
 * are derived for every user who received it, and a user who sees it in the
 * channel's history has neither, as Zulip's create_user_messages gives them
 * to the rows of the message's recipients only.
 */
export const CHANNEL_WILDCARD_FLAGS = ["stream_wildcard_mentioned", "wildcard_mentioned"] as const;

/** Flags with those of a channel-wide wildcard mention, in Zulip's order. */
export const withChannelWildcard = (flags: readonly string[]): string[] =>
  inFlagOrder([...flags, ...CHANNEL_WILDCARD_FLAGS]);

/**
 * Flags without those a channel-wide wildcard mention derives: what a row
 * stores of them. The legacy "wildcard_mentioned" stays with a topic
 * wildcard's "topic_wildcard_mentioned", which is a row's.
 */
export const withoutChannelWildcard = (flags: readonly string[]): string[] =>
  flags.filter(
    (f) =>
      f !== "stream_wildcard_mentioned" && (f !== "wildcard_mentioned" || flags.includes("topic_wildcard_mentioned")),
  );

/** The flags a mention sets (Markdown rendering decides them, and re-decides on edit). */
export const { MENTION_FLAGS } = messaging;
/** Whether a row's flags count it among unread_msgs' mentions. */
export const isMention = (flags: readonly string[]): boolean => MENTION_FLAGS.some((f) => flags.includes(f));
