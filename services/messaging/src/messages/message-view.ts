import {
  SYSTEM_BOT_REALM,
  avatarUrlForClient,
  type CallContext,
  type RealmRef,
  type messaging,
  type realmConfig,
  topicLinks,
} from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { LinkifierSource } from "../render/linkifier-source";
import type { UserSummary, UserDirectory } from "../users/user-directory";
import { reactionView } from "./message-reactions";
import { submessageView } from "./message-submessages";
import type { MessageDoc } from "./message.schema";

export interface MessageViewOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

/** What rendering a batch of messages needs: their senders, recipients and channels, the linkifiers of topic_links. */
export interface MessageViewContext extends MessageViewOptions {
  realm: RealmRef;
  settings: realmConfig.RealmSettings;
  users: Map<number, UserSummary>;
  channels: Map<number, ChannelDoc>;
  /** the sender_realm_str of the organization's own users */
  realmStr: string;
  /** topic_links of a topic, worked out once per batch: a page's messages share a few topics */
  topicLinksOf: (topic: string) => messaging.Message["topic_links"];
}

/** The organization's subdomain, from the host it is served on ("" for the bare host). */
const realmStr = (realm: RealmRef): string => {
  const host = realm.host.replace(/:\d+$/, "");
  return host.includes(".") && !/^[\d.]+$/.test(host) ? host.split(".")[0]! : "";
};

export async function loadViewContext(
  deps: { users: UserDirectory; channels: ChannelDirectory; linkifiers: LinkifierSource },
  ctx: CallContext,
  realm: RealmRef,
  settings: realmConfig.RealmSettings,
  messages: MessageDoc[],
  opts: MessageViewOptions,
): Promise<MessageViewContext> {
  const userIds = messages.flatMap((msg) =>
    msg.type === "private" ? [msg.senderId, ...msg.receivers] : [msg.senderId],
  );
  const streamIds = [...new Set(messages.flatMap((msg) => (msg.streamId === null ? [] : [msg.streamId])))];
  const [users, channels, linkifiers] = await Promise.all([
    deps.users.byIds(ctx, realm.id, [...new Set(userIds)]),
    streamIds.length ? deps.channels.byIds(realm.id, streamIds) : [],
    streamIds.length ? deps.linkifiers.get(ctx) : [],
  ]);
  const links = new Map<string, messaging.Message["topic_links"]>();
  const topicLinksOf = (topic: string) => {
    let found = links.get(topic);
    if (!found) links.set(topic, (found = topicLinks(topic, linkifiers)));
    return found;
  };
  return {
    ...opts,
    realm,
    settings,
    users,
    channels: new Map(channels.map((c) => [c.streamId, c])),
    realmStr: realmStr(realm),
    topicLinksOf,
  };
}

/** A channel topic as a client sees it: Zulip's empty topic shown by its display name unless the client takes "". */
export const topicForClient = (
  topic: string,
  allowEmptyTopicName: boolean,
  settings: Pick<realmConfig.RealmSettings, "realm_empty_topic_display_name">,
): string => (topic === "" && !allowEmptyTopicName ? settings.realm_empty_topic_display_name : topic);

/**
 * The edit history a message shows under the organization's
 * message_edit_history_visibility_policy, most recent edit first: all of it,
 * only moves (without content), or none.
 */
function visibleEditHistory(
  history: messaging.EditHistoryEntry[] | undefined,
  policy: realmConfig.RealmSettings["message_edit_history_visibility_policy"],
): messaging.EditHistoryEntry[] | undefined {
  if (!history?.length || policy === "none") return undefined;
  const newestFirst = [...history].reverse();
  if (policy === "all") return newestFirst;
  const moves = newestFirst
    .filter((e) => e.prev_topic !== undefined || e.prev_stream !== undefined)
    .map(({ prev_content: _c, prev_rendered_content: _r, ...move }) => move);
  return moves.length ? moves : undefined;
}

/** What direct and channel messages share; the edit fields only when the message has them (Zulip omits them). */
type MessageBase = Omit<messaging.Message, "type" | "display_recipient" | "stream_id" | "subject">;

/**
 * Zulip's message object (zulip.yaml MessagesBase), as GET /messages and message events carry it.
 * Built by assigning onto one object rather than spreading into larger literals: V8 takes its slow
 * path for those, and this view is built per message (docs/adr/0031-hot-path-views.md).
 */
export function messageView(msg: MessageDoc, vc: MessageViewContext): messaging.Message {
  const sender = vc.users.get(msg.senderId);
  const base: MessageBase = {
    id: msg.messageId,
    sender_id: msg.senderId,
    sender_email: sender?.email ?? "",
    sender_full_name: sender?.full_name ?? "",
    // Zulip's system bots belong to its internal realm
    sender_realm_str: sender?.is_system_bot ? SYSTEM_BOT_REALM : vc.realmStr,
    avatar_url: avatarUrlForClient(sender?.avatar_url ?? null, vc.clientGravatar),
    client: msg.client,
    content: vc.applyMarkdown ? msg.renderedContent : msg.content,
    content_type: vc.applyMarkdown ? ("text/html" as const) : ("text/x-markdown" as const),
    is_me_message: /^\/me\s/.test(msg.content),
    reactions: (msg.reactions ?? []).map(reactionView),
    recipient_id: msg.recipientId,
    submessages: (msg.submessages ?? []).map((s) => submessageView(msg.messageId, s)),
    timestamp: msg.timestamp,
    // Zulip links the topic's linkifier matches and URLs (direct messages have no topic)
    topic_links: msg.type === "stream" ? vc.topicLinksOf(msg.topic) : [],
  };
  const history = visibleEditHistory(msg.editHistory, vc.settings.message_edit_history_visibility_policy);
  if (history !== undefined) base.edit_history = history;
  if (msg.lastEditTimestamp !== undefined) base.last_edit_timestamp = msg.lastEditTimestamp;
  if (msg.lastMovedTimestamp !== undefined) base.last_moved_timestamp = msg.lastMovedTimestamp;
  if (msg.type === "private") {
    const display_recipient = msg.receivers.map((id) => {
      const u = vc.users.get(id);
      return { id, email: u?.email ?? "", full_name: u?.full_name ?? "", is_mirror_dummy: false };
    });
    return Object.assign(base, { type: "private" as const, display_recipient, subject: "" as const });
  }
  return Object.assign(base, {
    type: "stream" as const,
    display_recipient: vc.channels.get(msg.streamId!)?.name ?? "",
    stream_id: msg.streamId!,
    subject: topicForClient(msg.topic, vc.allowEmptyTopicName, vc.settings),
  });
}
