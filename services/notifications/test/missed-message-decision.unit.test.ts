/**
 * Zulip's notification rules (zerver/lib/notification_data.py) as decide()
 * applies them to one recipient: triggers by salience, the settings that turn
 * each off, muting, idleness and online push.
 */
import type { identity, messaging } from "@teamchat/shared";
import { decide, notifiesOfEveryMessage, type RecipientState } from "../src/missed-messages/decide";

const SETTINGS: identity.NotificationRecipient["settings"] = {
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  message_content_in_email_notifications: true,
  email_notifications_batching_period_seconds: 120,
  realm_name_in_email_notifications_policy: 1,
  enable_digest_emails: true,
  enable_login_emails: true,
};
const FACTS: messaging.RecipientNotificationFacts = {
  user_id: 2,
  sender_muted: false,
  channel_muted: false,
  visibility_policy: 0,
  email_notifications: null,
  push_notifications: null,
  wildcard_mentions_notify: null,
};

const state = (
  over: {
    flags?: string[];
    settings?: Partial<RecipientState["settings"]>;
    facts?: Partial<RecipientState["facts"]>;
    idle?: boolean;
  } = {},
): RecipientState => ({
  flags: over.flags ?? [],
  settings: { ...SETTINGS, ...over.settings },
  facts: { ...FACTS, ...over.facts },
  idle: over.idle ?? true,
});

describe("decide", () => {
  it("direct messages: email and push while away; push only (online push) while online", () => {
    expect(decide(true, state(), true)).toEqual({ email: "private_message", push: "private_message" });
    expect(decide(true, state({ idle: false }), true)).toEqual({ push: "private_message" });
    expect(decide(true, state({ idle: false, settings: { enable_online_push_notifications: false } }), true)).toEqual(
      {},
    );
    expect(decide(true, state(), false)).toEqual({ email: "private_message" });
  });

  it("enable_offline_email/push_notifications turn off direct messages and mentions", () => {
    const off = { enable_offline_email_notifications: false, enable_offline_push_notifications: false };
    expect(decide(true, state({ settings: off }), true)).toEqual({});
    expect(decide(false, state({ flags: ["mentioned"], settings: off }), true)).toEqual({});
  });

  it("a muted sender notifies nobody", () => {
    expect(decide(true, state({ facts: { sender_muted: true } }), true)).toEqual({});
  });

  it("mentions come before channel settings; a muted topic keeps mentions but not the channel's notifications", () => {
    const channelOn = { email_notifications: true, push_notifications: true };
    expect(decide(false, state({ facts: channelOn }), true)).toEqual({
      email: "stream_email_notify",
      push: "stream_push_notify",
    });
    expect(decide(false, state({ flags: ["mentioned"], facts: channelOn }), true)).toEqual({
      email: "mentioned",
      push: "mentioned",
    });
    const mutedTopic = { ...channelOn, visibility_policy: 1 };
    expect(decide(false, state({ facts: mutedTopic }), true)).toEqual({});
    expect(decide(false, state({ flags: ["mentioned"], facts: mutedTopic }), true)).toEqual({
      email: "mentioned",
      push: "mentioned",
    });
    // a muted channel, unless the topic is unmuted
    expect(decide(false, state({ facts: { ...channelOn, channel_muted: true } }), true)).toEqual({});
    expect(decide(false, state({ facts: { ...channelOn, channel_muted: true, visibility_policy: 2 } }), true)).toEqual({
      email: "stream_email_notify",
      push: "stream_push_notify",
    });
  });

  it("wildcard mentions follow wildcard_mentions_notify, the subscription's own setting first", () => {
    const wildcard = { flags: ["stream_wildcard_mentioned", "wildcard_mentioned"] };
    expect(decide(false, state(wildcard), false)).toEqual({ email: "stream_wildcard_mentioned" });
    expect(decide(false, state({ ...wildcard, settings: { wildcard_mentions_notify: false } }), false)).toEqual({});
    expect(
      decide(
        false,
        state({
          ...wildcard,
          settings: { wildcard_mentions_notify: false },
          facts: { wildcard_mentions_notify: true },
        }),
        false,
      ),
    ).toEqual({ email: "stream_wildcard_mentioned" });
    expect(decide(false, state({ flags: ["topic_wildcard_mentioned", "wildcard_mentioned"] }), false)).toEqual({
      email: "topic_wildcard_mentioned",
    });
  });

  it("tells a topic wildcard from a channel one by the message's specific flag, the topic one first", () => {
    const pushing = { settings: { enable_online_push_notifications: true } };
    expect(
      decide(false, state({ ...pushing, flags: ["topic_wildcard_mentioned", "wildcard_mentioned"] }), true),
    ).toEqual({ email: "topic_wildcard_mentioned", push: "topic_wildcard_mentioned" });
    expect(
      decide(false, state({ ...pushing, flags: ["stream_wildcard_mentioned", "wildcard_mentioned"] }), true),
    ).toEqual({ email: "stream_wildcard_mentioned", push: "stream_wildcard_mentioned" });
    // a message with both wildcards: Zulip's trigger order puts the topic's first
    const both = ["stream_wildcard_mentioned", "topic_wildcard_mentioned", "wildcard_mentioned"];
    expect(decide(false, state({ flags: both }), false)).toEqual({ email: "topic_wildcard_mentioned" });
    // the legacy flag alone names no wildcard: nothing to notify of
    expect(decide(false, state({ flags: ["wildcard_mentioned"] }), false)).toEqual({});
    // a personal mention outranks both
    expect(decide(false, state({ flags: ["mentioned", ...both] }), false)).toEqual({ email: "mentioned" });
  });

  it("followed topics: their own settings, and wildcard mentions in them", () => {
    const followed = { facts: { visibility_policy: 3 } };
    expect(decide(false, state(followed), true)).toEqual({
      email: "followed_topic_email_notify",
      push: "followed_topic_push_notify",
    });
    expect(
      decide(false, state({ ...followed, settings: { enable_followed_topic_email_notifications: false } }), false),
    ).toEqual({});
    expect(
      decide(
        false,
        state({
          ...followed,
          flags: ["stream_wildcard_mentioned", "wildcard_mentioned"],
          settings: { wildcard_mentions_notify: false },
        }),
        false,
      ),
    ).toEqual({ email: "stream_wildcard_mentioned_in_followed_topic" });
    expect(
      decide(
        false,
        state({
          ...followed,
          flags: ["topic_wildcard_mentioned", "wildcard_mentioned"],
          settings: { wildcard_mentions_notify: false },
        }),
        false,
      ),
    ).toEqual({ email: "topic_wildcard_mentioned_in_followed_topic" });
  });
});

describe("notifiesOfEveryMessage (an edit's new mentions are not notified to these)", () => {
  it("the channel's email or push notifications, as the subscription or the user's default sets them", () => {
    expect(notifiesOfEveryMessage(state())).toBe(false);
    expect(notifiesOfEveryMessage(state({ settings: { enable_stream_email_notifications: true } }))).toBe(true);
    expect(notifiesOfEveryMessage(state({ settings: { enable_stream_push_notifications: true } }))).toBe(true);
    expect(notifiesOfEveryMessage(state({ facts: { push_notifications: true } }))).toBe(true);
    expect(
      notifiesOfEveryMessage(
        state({ settings: { enable_stream_email_notifications: true }, facts: { email_notifications: false } }),
      ),
    ).toBe(false);
  });

  it("not in a muted topic or channel; in a followed topic with the followed-topic settings", () => {
    const everyMessage = { settings: { enable_stream_email_notifications: true } };
    expect(notifiesOfEveryMessage(state({ ...everyMessage, facts: { visibility_policy: 1 } }))).toBe(false);
    expect(notifiesOfEveryMessage(state({ ...everyMessage, facts: { channel_muted: true } }))).toBe(false);
    expect(notifiesOfEveryMessage(state({ facts: { visibility_policy: 3 } }))).toBe(true);
    expect(
      notifiesOfEveryMessage(
        state({
          facts: { visibility_policy: 3 },
          settings: {
            enable_followed_topic_email_notifications: false,
            enable_followed_topic_push_notifications: false,
          },
        }),
      ),
    ).toBe(false);
  });
});
