import { badRequest, type Actor, type CallContext, type RealmRef, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { MessageRepository } from "./message.repository";
import type { MessageHistory } from "./message-history";
import { narrowToQuery, normalizeNarrow, type NarrowCondition, type NarrowResolver } from "../narrow/conditions";
import { narrowResolver } from "../narrow/resolver";
import type { MessageDoc } from "./message.schema";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor "newest" stands for. */
const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

/** Zulip's parse_anchor_value: an id, "newest", "oldest", or null for "first_unread". */
export function parseAnchor(anchor: string | number | undefined, firstUnread = false): number | null {
  if (firstUnread) return null;
  if (anchor === undefined) throw badRequest("Missing 'anchor' argument.");
  if (anchor === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (anchor === "oldest") return 0;
  if (anchor === "first_unread") return null;
  const n = typeof anchor === "number" ? anchor : /^-?\d+$/.test(anchor) ? Number(anchor) : NaN;
  if (!Number.isInteger(n)) throw badRequest("Invalid anchor");
  return Math.min(Math.max(n, 0), LARGER_THAN_MAX_MESSAGE_ID);
}

/** Zulip refuses a range that leaves out its anchor in the middle (checked before the narrow is read). */
export function checkAnchorExclusion(numBefore: number, numAfter: number, includeAnchor: boolean): void {
  if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
    throw badRequest("The anchor can only be excluded at an end of the range");
  }
}

/** What resolving a narrow reads: the channels, conversations, flags, topics and messages its operators name. */
export interface NarrowDeps {
  messages: MessageRepository;
  userTopics: UserTopicIndex;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  users: UserDirectory;
  conversations: ConversationRepository;
  personal: PersonalIndex;
  settings: RealmSettingsSource;
  userGroups: UserGroupMemberships;
  receivers: ReceiverCache;
}

/** A narrow as the caller may see it: its conditions, and the resolver that answered them. */
export async function resolveNarrow(
  deps: NarrowDeps,
  ctx: CallContext,
  realm: RealmRef,
  actor: Actor,
  raw: Parameters<typeof normalizeNarrow>[0],
): Promise<{ terms: NarrowCondition[]; resolver: NarrowResolver }> {
  const settings = await deps.settings.get(ctx);
  const resolver = await narrowResolver(deps, ctx, realm.id, actor, settings.realm_empty_topic_display_name);
  return { terms: (await narrowToQuery(normalizeNarrow(raw), resolver)).terms, resolver };
}

export interface MessageRange {
  /** oldest first */
  rows: MessageDoc[];
  /** the anchor used: "first_unread" resolved to an id (or "newest" when nothing is unread) */
  anchor: number;
  found_anchor: boolean;
  found_oldest: boolean;
  found_newest: boolean;
}

/**
 * Zulip's fetch_messages for a range: up to numBefore messages before the
 * anchor, the anchor itself when it matches and is included, and numAfter
 * after it. A null anchor is the first unread message of the narrow.
 */
export async function messageRange(
  deps: { messages: MessageRepository; history: MessageHistory },
  realmId: number,
  narrow: { terms: NarrowCondition[]; resolver: NarrowResolver },
  r: { anchor: number | null; numBefore: number; numAfter: number; includeAnchor: boolean },
): Promise<MessageRange> {
  let anchor = r.anchor;
  if (anchor === null) {
    const [first] = await deps.messages.byIds(realmId, narrow.terms, await narrow.resolver.unread(), 1);
    anchor = first?.messageId ?? LARGER_THAN_MAX_MESSAGE_ID;
  }
  const anchoredLeft = anchor === 0;
  const anchoredRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const window = await deps.history.window({
    realmId,
    narrow: narrow.terms,
    anchor,
    before: anchoredLeft ? 0 : r.numBefore,
    after: anchoredRight ? 0 : r.numAfter,
    includeAnchor: r.includeAnchor,
  });
  return {
    rows: [...window.before, ...(window.anchor ? [window.anchor] : []), ...window.after],
    anchor,
    found_anchor: window.anchor !== null,
    found_oldest: anchoredLeft || window.before.length < r.numBefore,
    found_newest: anchoredRight || window.after.length < r.numAfter,
  };
}
