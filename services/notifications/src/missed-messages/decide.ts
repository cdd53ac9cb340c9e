import { messaging, type identity, type notifications } from "@teamchat/shared";

type Trigger = notifications.MissedMessageTrigger;

/** Everything known of one recipient when a message is sent. */
export interface RecipientState {
  flags: string[];
  settings: identity.NotificationRecipient["settings"];
  facts: messaging.RecipientNotificationFacts;
  /** Zulip's idle: no event queue that takes messages, or no active presence lately */
  idle: boolean;
}

export interface Decision {
  email?: Trigger;
  push?: Trigger;
}

const { FOLLOWED, MUTED, UNMUTED } = messaging.VISIBILITY_POLICY;

/**
 * Zulip's user_allows_notifications_in_StreamTopic: a muted channel or topic
 * notifies nobody (an unmuted topic in a muted channel does), then the
 * subscription's own setting, then the user's global one.
 */
function allowsInTopic(facts: messaging.RecipientNotificationFacts, own: boolean | null, global: boolean): boolean {
  if (facts.channel_muted && facts.visibility_policy !== UNMUTED) return false;
  if (facts.visibility_policy === MUTED) return false;
  return own ?? global;
}

/**
 * Zulip's stream_email_notify, stream_push_notify and their followed-topic
 * counterparts: the recipient's settings ask for every message of the topic,
 * so Zulip takes it that they were notified of a message when it was sent.
 */
export function notifiesOfEveryMessage({ settings: s, facts }: RecipientState): boolean {
  if (facts.visibility_policy === FOLLOWED) {
    if (s.enable_followed_topic_email_notifications || s.enable_followed_topic_push_notifications) return true;
  }
  return (
    allowsInTopic(facts, facts.email_notifications, s.enable_stream_email_notifications) ||
    allowsInTopic(facts, facts.push_notifications, s.enable_stream_push_notifications)
  );
}

/**
 * Zulip's UserMessageNotificationsData (zerver/lib/notification_data.py) for
 * one recipient who is neither the sender nor a bot: which trigger, if any,
 * emails them (only when idle) and pushes to them (when idle, or always with
 * enable_online_push_notifications), the most salient first. `pushPossible`
 * stands for Zulip's push_device_registered: push goes out only with a push
 * notification service configured (the sender checks the devices).
 */
export function decide(privateMessage: boolean, r: RecipientState, pushPossible: boolean): Decision {
  const { flags, settings: s, facts } = r;
  if (facts.sender_muted) return {};
  const followed = !privateMessage && facts.visibility_policy === FOLLOWED;
  const mentioned = flags.includes("mentioned");
  const topicWildcard = flags.includes("topic_wildcard_mentioned");
  const streamWildcard = flags.includes("stream_wildcard_mentioned");
  const wildcardAllowed =
    !privateMessage && allowsInTopic(facts, facts.wildcard_mentions_notify, s.wildcard_mentions_notify);
  const wildcardInFollowed = followed && s.enable_followed_topic_wildcard_mentions_notify;

  /** Direct messages and mentions, which Zulip's enable_offline_email/push_notifications turn off together. */
  const personalTrigger = (enabled: boolean): Trigger | undefined => {
    if (!enabled) return undefined;
    if (privateMessage) return "private_message";
    if (mentioned) return "mentioned";
    if (wildcardInFollowed && topicWildcard) return "topic_wildcard_mentioned_in_followed_topic";
    if (wildcardInFollowed && streamWildcard) return "stream_wildcard_mentioned_in_followed_topic";
    if (wildcardAllowed && topicWildcard) return "topic_wildcard_mentioned";
    if (wildcardAllowed && streamWildcard) return "stream_wildcard_mentioned";
    return undefined;
  };
  const channelAllows = (own: boolean | null, global: boolean) => !privateMessage && allowsInTopic(facts, own, global);

  const decision: Decision = {};
  if (r.idle) {
    decision.email =
      personalTrigger(s.enable_offline_email_notifications) ??
      (followed && s.enable_followed_topic_email_notifications
        ? "followed_topic_email_notify"
        : channelAllows(facts.email_notifications, s.enable_stream_email_notifications)
          ? "stream_email_notify"
          : undefined);
  }
  if (pushPossible && (r.idle || s.enable_online_push_notifications)) {
    decision.push =
      personalTrigger(s.enable_offline_push_notifications) ??
      (followed && s.enable_followed_topic_push_notifications
        ? "followed_topic_push_notify"
        : channelAllows(facts.push_notifications, s.enable_stream_push_notifications)
          ? "stream_push_notify"
          : undefined);
  }
  if (!decision.email) delete decision.email;
  if (!decision.push) delete decision.push;
  return decision;
}
