import { messaging, type notifications } from "@teamchat/shared";

type MissedMessageNotice = notifications.MissedMessageNotice;
type MissedMessageSnapshot = notifications.MissedMessageSnapshot;
type MissedMessageTrigger = notifications.MissedMessageTrigger;

/** What a missed-message email needs of its recipient and organization. */
export interface MissedMessageMailContext {
  realmName: string;
  realmUri: string;
  /** Zulip's message_content_allowed_in_missedmessage_emails: the user's and the organization's settings */
  showContent: boolean;
  contentDisabledByRealm: boolean;
  /** Zulip's include_realm_name_in_missedmessage_emails_subject */
  includeRealmName: boolean;
}

const MENTION_TRIGGERS: ReadonlySet<MissedMessageTrigger> = new Set([
  "mentioned",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
]);

/**
 * Zulip's buckets of handle_missedmessage_emails: one email per conversation,
 * a channel's topic (case-insensitive) or a direct message conversation (a
 * one-to-one one per sender), ordered by their newest message.
 */
export function bucketsOf(notices: MissedMessageNotice[]): MissedMessageNotice[][] {
  const buckets = new Map<string, MissedMessageNotice[]>();
  for (const n of notices) {
    const m = n.message;
    const participants = m.directRecipientIds ?? [];
    const key =
      m.type === "stream"
        ? `stream:${m.channelId}:${(m.topic ?? "").toLowerCase()}`
        : participants.length > 2
          ? `group:${[...participants].sort((a, b) => a - b).join(",")}`
          : `dm:${m.senderId}`;
    buckets.set(key, [...(buckets.get(key) ?? []), n]);
  }
  const newest = (b: MissedMessageNotice[]) => Math.max(...b.map((n) => n.message.id));
  return [...buckets.values()]
    .map((b) => [...b].sort((x, y) => x.message.dateSent - y.message.dateSent || x.message.id - y.message.id))
    .sort((a, b) => newest(a) - newest(b));
}

/** Zulip's group DM display name in the subject: two names with "and", three with a serial comma, more counted. */
function groupDisplayName(others: string[]): string {
  if (others.length <= 2) return others.join(" and ");
  if (others.length === 3) return `${others[0]}, ${others[1]}, and ${others[2]}`;
  return `${others.slice(0, 2).join(", ")}, and ${others.length - 2} others`;
}

/**
 * One conversation's missed-message email, as Zulip's
 * do_send_missedmessage_events_reply_in_zulip and its missed_message
 * templates make it (plain text): subject, each sender's messages, and why
 * the user got it. `otherNames`: a group DM's other participants' names;
 * `context`: earlier messages of the topic, shown among the others in the
 * order sent (Zulip's build_message_list) but not counted as notified.
 */
export function renderMissedMessageMail(
  bucket: MissedMessageNotice[],
  ctx: MissedMessageMailContext,
  otherNames: string[] = [],
  context: MissedMessageSnapshot[] = [],
): { subject: string; text: string } {
  const first = bucket[0]!.message;
  const triggers = new Set(bucket.map((n) => n.trigger));
  const mention = [...triggers].some((t) => MENTION_TRIGGERS.has(t));
  const personalMention = bucket.some((n) => n.trigger === "mentioned" && n.mentionedUserGroup === undefined);
  const isGroup = first.type === "private" && (first.directRecipientIds?.length ?? 0) > 2;
  const topic = first.topic ?? "";
  const resolved = topic.startsWith(messaging.RESOLVED_TOPIC_PREFIX);
  const bareTopic = resolved ? topic.slice(messaging.RESOLVED_TOPIC_PREFIX.length) : topic;
  const senders = [
    ...new Set(
      bucket
        .filter((n) => first.type === "private" || !mention || MENTION_TRIGGERS.has(n.trigger))
        .map((n) => n.message.senderFullName),
    ),
  ];

  let subject: string;
  if (!ctx.showContent) subject = "New messages";
  else if (isGroup) subject = `Group DMs with ${groupDisplayName(otherNames)}`;
  else if (first.type === "private") subject = `DMs with ${senders.join(", ")}`;
  else subject = `${resolved ? "[resolved] " : ""}#${first.channelName} > ${bareTopic}`;
  if (ctx.includeRealmName) subject += ` [${ctx.realmName}]`;

  const lines: string[] = [];
  if (ctx.showContent) {
    const shown = [...context, ...bucket.map((n) => n.message)].sort((a, b) => a.dateSent - b.dateSent || a.id - b.id);
    let previousSender: number | undefined;
    for (const message of shown) {
      lines.push(
        message.senderId === previousSender ? message.content : `${message.senderFullName}: ${message.content}`,
      );
      lines.push("");
      previousSender = message.senderId;
    }
  } else if (ctx.contentDisabledByRealm) {
    lines.push(
      `This email does not include message content because your organization hides message content in email notifications. See ${ctx.realmUri}/help/hide-message-content-in-emails for more details.`,
      "",
    );
  } else {
    lines.push(
      `This email does not include message content because you have chosen to hide message content in email notifications. See ${ctx.realmUri}/help/email-notifications#hide-message-content for more details.`,
      "",
    );
  }
  lines.push("--");
  const reason = reasonOf(triggers, personalMention, mentionedUserGroup(bucket), first.channelName ?? "", bareTopic);
  if (reason) lines.push(reason, "");
  lines.push(
    `${ctx.showContent ? "Reply" : "View or reply"} in ${ctx.realmName} Zulip:`,
    "",
    narrowUrl(ctx.realmUri, first),
    "",
  );
  lines.push("Manage email preferences:", "", `${ctx.realmUri}/#settings/notifications`, "");
  return { subject, text: lines.join("\n") };
}

/**
 * Zulip's get_mentioned_user_group (zerver/lib/email_notifications.py): none
 * when a message mentions the user personally, else the smallest of the
 * groups the messages notified them through, the first among equals.
 */
function mentionedUserGroup(bucket: MissedMessageNotice[]): string | undefined {
  if (bucket.some((n) => n.trigger === "mentioned" && n.mentionedUserGroup === undefined)) return undefined;
  let smallest: notifications.MentionedUserGroup | undefined;
  for (const { mentionedUserGroup: group } of bucket) {
    if (group && (!smallest || group.membersCount < smallest.membersCount)) smallest = group;
  }
  return smallest?.name;
}

function reasonOf(
  triggers: Set<MissedMessageTrigger>,
  personalMention: boolean,
  groupName: string | undefined,
  channel: string,
  topic: string,
): string | undefined {
  if (personalMention) return "You are receiving this because you were personally mentioned.";
  if (groupName !== undefined) return `You are receiving this because @${groupName} was mentioned.`;
  if (triggers.has("topic_wildcard_mentioned_in_followed_topic") || triggers.has("topic_wildcard_mentioned")) {
    return `You are receiving this because all topic participants were mentioned in #${channel} > ${topic}.`;
  }
  if (triggers.has("stream_wildcard_mentioned_in_followed_topic")) {
    return "You are receiving this because you have wildcard mention notifications enabled for topics you follow.";
  }
  if (triggers.has("stream_wildcard_mentioned"))
    return `You are receiving this because everyone was mentioned in #${channel}.`;
  if (triggers.has("followed_topic_email_notify")) {
    return "You are receiving this because you have email notifications enabled for topics you follow.";
  }
  if (triggers.has("stream_email_notify")) {
    return `You are receiving this because you have email notifications enabled for #${channel}.`;
  }
  return undefined;
}

/** Zulip's encode_hash_component: a narrow URL's component, percent-encoded with "." for "%". */
const hashComponent = (s: string) => encodeURIComponent(s).replace(/\./g, "%2E").replace(/%/g, ".");

/** Zulip's stream_narrow_url. */
export const channelNarrowUrl = (realmUri: string, channelId: number, channelName: string): string =>
  `${realmUri}/#narrow/channel/${channelId}-${hashComponent(channelName)}`;

/** Zulip's topic_narrow_url. */
export const topicNarrowUrl = (realmUri: string, channelId: number, channelName: string, topic: string): string =>
  `${channelNarrowUrl(realmUri, channelId, channelName)}/topic/${hashComponent(topic)}`;

/** Zulip's narrow URLs: the topic, or the direct message conversation. */
function narrowUrl(realmUri: string, m: MissedMessageNotice["message"]): string {
  if (m.type === "stream") return topicNarrowUrl(realmUri, m.channelId!, m.channelName ?? "", m.topic ?? "");
  const ids = [...(m.directRecipientIds ?? [m.senderId])].sort((a, b) => a - b);
  return `${realmUri}/#narrow/dm/${ids.join(",")}`;
}
