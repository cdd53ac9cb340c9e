import type { notifications, RealmRef } from "@teamchat/shared";
import { mobilePushContent, truncateContent } from "./mobile-push-content";

/**
 * The payloads Zulip's server sends through the push notification service
 * (zerver/lib/push_notifications.py): the legacy APNs and FCM ones, read by
 * the mobile apps' operating systems and older apps, and the data encrypted
 * for devices registered with POST /mobile_push/register (documented in
 * Zulip's api_docs/mobile-notifications.md).
 */

export type Payload = Record<string, unknown>;
type MissedMessageSnapshot = notifications.MissedMessageSnapshot;
type MissedMessageTrigger = notifications.MissedMessageTrigger;

/** Who is notified, and where. */
export interface Recipient {
  realm: RealmRef;
  userId: number;
}

/** The message and what the payloads say about it beyond the snapshot. */
export interface NotifiedMessage {
  message: MissedMessageSnapshot;
  trigger: MissedMessageTrigger;
  senderAvatarUrl: string;
  /** the group whose mention notified the user (not set when they were mentioned personally) */
  mentionedUserGroup?: { id: number; name: string };
  /** full names of a direct message's participants (an iOS group notification's title) */
  participantNames: string[];
}

/** APNs allows 4 KB: Zulip keeps the newest 200 ids of a removal. */
const MAX_REMOVED_MESSAGE_IDS = 200;

/** Zulip's get_topic_display_name: the empty topic by the name clients show for it. */
const topicDisplayName = (topic: string): string => (topic === "" ? "general chat" : topic);

/** Zulip's get_base_payload: legacy payloads also carry server, realm_id and realm_uri. */
export function basePayload({ realm, userId }: Recipient, legacy: boolean): Payload {
  return {
    ...(legacy ? { server: realm.host, realm_id: realm.id, realm_uri: realm.uri } : {}),
    realm_url: realm.uri,
    realm_name: realm.name,
    user_id: userId,
  };
}

/** Zulip's get_message_payload: who sent it, where, and the group mention. */
function messagePayload(to: Recipient, n: NotifiedMessage, legacy: boolean): Payload {
  const { message } = n;
  const data: Payload = { ...basePayload(to, legacy), sender_id: message.senderId };
  if (legacy) data.sender_email = message.senderEmail;
  if (n.mentionedUserGroup) {
    data.mentioned_user_group_id = n.mentionedUserGroup.id;
    data.mentioned_user_group_name = n.mentionedUserGroup.name;
  }
  if (message.type === "stream") {
    if (legacy)
      Object.assign(data, { recipient_type: "stream", stream: message.channelName, stream_id: message.channelId });
    else
      Object.assign(data, {
        recipient_type: "channel",
        channel_name: message.channelName,
        channel_id: message.channelId,
      });
    data.topic = topicDisplayName(message.topic ?? "");
    return data;
  }
  const participants = [...new Set([...(message.directRecipientIds ?? []), message.senderId])].sort((a, b) => a - b);
  if (legacy) {
    data.recipient_type = "private";
    // group direct messages only: the participants as a comma-separated string (Zulip's direct_message_group_users)
    if (participants.length > 2) data.pm_users = participants.join(",");
  } else {
    data.recipient_type = "direct";
    data.recipient_user_ids = participants;
  }
  return data;
}

const content = (message: MissedMessageSnapshot): string => truncateContent(mobilePushContent(message.renderedContent));

/** Zulip's get_message_payload_gcm: the FCM data (legacy) or the data encrypted for an E2EE device. */
function messageData(to: Recipient, n: NotifiedMessage, legacy: boolean): Payload {
  const data = messagePayload(to, n, legacy);
  if (legacy) Object.assign(data, { event: "message", zulip_message_id: n.message.id });
  else Object.assign(data, { type: "message", message_id: n.message.id });
  return {
    ...data,
    time: n.message.dateSent,
    content: content(n.message),
    sender_full_name: n.message.senderFullName,
    sender_avatar_url: n.senderAvatarUrl,
  };
}

export const gcmMessagePayload = (to: Recipient, n: NotifiedMessage) => ({
  data: messageData(to, n, true),
  options: { priority: "high" },
});

export const e2eeMessagePayload = (to: Recipient, n: NotifiedMessage): Payload => messageData(to, n, false);

/** Zulip's get_apns_alert_title: a group's participants, the channel and topic, or the sender. */
function apnsTitle(n: NotifiedMessage): string {
  const { message } = n;
  if (message.type === "stream") return `#${message.channelName} > ${topicDisplayName(message.topic ?? "")}`;
  if (n.participantNames.length > 2) return [...n.participantNames].sort().join(", ");
  return message.senderFullName;
}

const WILDCARD_TRIGGERS: ReadonlySet<MissedMessageTrigger> = new Set([
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
]);

/** Zulip's get_apns_alert_subtitle: why the user is notified, or the sender where the title does not say. */
function apnsSubtitle(n: NotifiedMessage): string {
  const sender = n.message.senderFullName;
  if (n.trigger === "mentioned") {
    return n.mentionedUserGroup ? `${sender} mentioned @${n.mentionedUserGroup.name}:` : `${sender} mentioned you:`;
  }
  if (WILDCARD_TRIGGERS.has(n.trigger)) return `${sender} mentioned everyone:`;
  if (n.message.type === "private" && n.participantNames.length <= 2) return "";
  return `${sender}:`;
}

/** APNs drops these: the legacy iOS app never read them. */
function withoutLegacyServerFields(payload: Payload): Payload {
  const { server: _server, realm_id: _realmId, ...rest } = payload;
  return rest;
}

/** Zulip's get_message_payload_apns. */
export function apnsMessagePayload(to: Recipient, n: NotifiedMessage): Payload {
  return {
    alert: { title: apnsTitle(n), subtitle: apnsSubtitle(n), body: content(n.message) },
    sound: "default",
    // Zulip sends 0 until the apps count unread notifications themselves (get_apns_badge_count)
    badge: 0,
    custom: { zulip: { ...withoutLegacyServerFields(messagePayload(to, n, true)), message_ids: [n.message.id] } },
  };
}

/** The newest ids of a removal, in order (Zulip's truncation to MAX_APNS_MESSAGE_IDS). */
export const removedMessageIds = (ids: number[]): number[] =>
  [...ids].sort((a, b) => a - b).slice(-MAX_REMOVED_MESSAGE_IDS);

/** Zulip's get_remove_payload_gcm. */
export const gcmRemovePayload = (to: Recipient, messageIds: number[]) => ({
  data: { ...basePayload(to, true), event: "remove", zulip_message_ids: messageIds.join(",") },
  options: { priority: "normal" },
});

/** Zulip's get_remove_payload_apns. */
export const apnsRemovePayload = (to: Recipient, messageIds: number[]): Payload => ({
  badge: 0,
  custom: {
    zulip: {
      ...withoutLegacyServerFields(basePayload(to, true)),
      event: "remove",
      zulip_message_ids: messageIds.join(","),
    },
  },
});

/** Zulip's get_remove_payload_data_to_encrypt. */
export const e2eeRemovePayload = (to: Recipient, messageIds: number[]): Payload => ({
  ...basePayload(to, false),
  type: "remove",
  message_ids: messageIds,
});

/** Zulip's send_e2ee_test_push_notification. */
export const e2eeTestPayload = (to: Recipient, now: Date): Payload => ({
  ...basePayload(to, false),
  type: "test",
  time: Math.floor(now.getTime() / 1000),
});
