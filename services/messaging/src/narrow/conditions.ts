import { badRequest, messaging, ZulipError } from "@teamchat/shared";

/** A narrow term in Zulip's object form (legacy pairs are converted by normalizeNarrow). */
export interface NarrowTerm {
  operator: string;
  operand: string | number | Array<string | number>;
  negated: boolean;
}

type RawTerm =
  { operator: string; operand: NarrowTerm["operand"]; negated?: boolean } | [string, NarrowTerm["operand"]];

/** Zulip's BadNarrowOperatorError. */
export const badNarrow = (desc: string): ZulipError =>
  new ZulipError("BAD_NARROW", `Invalid narrow operator: ${desc}`, 400, { desc });

/** Zulip's InvalidOperatorCombinationError. */
const badCombination = (desc: string): ZulipError =>
  new ZulipError("BAD_NARROW", `Invalid narrow operator combination: ${desc}`, 400, { desc });

/** Old operator names Zulip still accepts (its NarrowBuilder.by_method_map), as the current ones. */
const ALIASES: Record<string, string> = {
  stream: "channel",
  streams: "channels",
  subject: "topic",
  "pm-with": "dm",
  pm_with: "dm",
  group_pm_with: "group-pm-with",
  from: "sender",
};

/** Operators whose operand is one id or a name (Zulip's operators_supporting_id). */
const ID_OPERATORS = new Set(["channel", "id", "sender", "group-pm-with", "dm-including", "with"]);

/** Zulip's NarrowParameter.validate_terms: the operand's type for its operator (400 BAD_REQUEST otherwise). */
function checkOperand(operator: string, operand: unknown): void {
  const isInt = (v: unknown) => typeof v === "number" && Number.isInteger(v);
  if (ID_OPERATORS.has(operator)) {
    if (typeof operand !== "string" && !isInt(operand)) throw badRequest("operand is not a string or integer");
  } else if (operator === "dm") {
    if (typeof operand === "string") return;
    if (!Array.isArray(operand)) throw badRequest("operand is not a string or an integer list");
    const bad = operand.findIndex((v) => !isInt(v));
    if (bad >= 0) throw badRequest(`operand[${bad}] is not an integer`);
  } else if (typeof operand !== "string") {
    throw badRequest("operand is not a string");
  } else if (operator === "search" && !operand.trim()) {
    throw badRequest("operand cannot be blank.");
  }
}

export function normalizeNarrow(raw: RawTerm[]): NarrowTerm[] {
  return raw.map((t) => {
    const [operator, operand, negated] = Array.isArray(t) ? [t[0], t[1], false] : [t.operator, t.operand, !!t.negated];
    const op = operator.startsWith("-") ? operator.slice(1) : operator;
    const canonical = ALIASES[op] ?? op;
    checkOperand(canonical, operand);
    return {
      operator: canonical,
      operand: op === "is" && operand === "private" ? "dm" : operand,
      negated: negated || operator.startsWith("-"),
    };
  });
}

/** A channel's topic: the channel and the lowercased topic name. */
export interface TopicRef {
  streamId: number;
  key: string;
}

/**
 * A user's subscription intervals per channel (ChannelReadState.intervals, by
 * channel id): which of the channel messages received by subscription they
 * received.
 */
export type ReceivedRanges = ReadonlyMap<number, readonly number[]>;

/** What translating a narrow needs to look up; the handler answers from its repositories. */
export interface NarrowResolver {
  userId: number;
  /** realm_empty_topic_display_name: as a topic operand it means "" (Zulip's empty topic) */
  emptyTopicName: string;
  /** a channel the user may see, and whether they may read its whole history; null if none */
  channel(operand: string | number): Promise<{ streamId: number; fullHistory: boolean } | null>;
  /** user ids for ids or emails; null if any is unknown */
  users(operands: Array<string | number>): Promise<number[] | null>;
  /** recipient id of the direct conversation of exactly these users, null if none */
  conversation(userIds: number[]): Promise<number | null>;
  /** where a message the user may see is now (the `with` operator); null when there is none */
  message(messageId: number): Promise<{ streamId: number; topic: string } | { participants: number[] } | null>;
  /** ids of the user's messages that have any of these stored personal flags, ascending */
  flagged(flags: readonly string[]): Promise<number[]>;
  /**
   * ids of the messages that mention the user, ascending: personal, group,
   * channel-wide and topic wildcard mentions alike (Zulip's is:mentioned)
   */
  mentioned(): Promise<number[]>;
  /** ids of the user's unread messages, ascending */
  unread(): Promise<number[]>;
  /** the user's subscription intervals, and the ids of the messages they have a row of (ascending) */
  received(): Promise<{ channels: ReceivedRanges; rows: readonly number[] }>;
  /** the user's topics with one of these visibility policies */
  topicsWithPolicy(policies: readonly messaging.VisibilityPolicy[]): Promise<TopicRef[]>;
  /** the channels the user muted (Zulip's subscription is_muted) */
  mutedChannels(): Promise<number[]>;
  /** channels:public or channels:web-public that the user may read in full */
  publicChannels(webPublicOnly: boolean): Promise<number[]>;
}

/** What has: tests: Zulip's Message.has_* columns, and whether the message has any reaction. */
export type ContentFeature = "link" | "image" | "attachment" | "reaction";

/**
 * One condition on messages, as the narrow means it (MessageRepository turns
 * a list of them, all of which must hold, into its query).
 */
export type NarrowCondition =
  | { kind: "channel"; streamId: number }
  | { kind: "channels"; streamIds: number[] }
  /** a channel message in this topic (lowercased: topics compare case-insensitively) */
  | { kind: "topic"; key: string }
  | { kind: "sender"; userId: number }
  /**
   * The user's personal history (Zulip's UserMessage rows): they received it (a stored receiver, or
   * subscribed when it was sent), or it is among `rows` (ascending), messages they have a row of
   * though they never received them (Zulip's historical rows: starred through a channel's history).
   */
  | { kind: "receivers"; userId: number; channels: ReceivedRanges; rows?: readonly number[] }
  /** a direct message of this conversation */
  | { kind: "conversation"; recipientId: number }
  /** a direct message whose participants include all these users; only group conversations when groupOnly */
  | { kind: "dm-including"; userIds: number[]; groupOnly?: true }
  /** any direct message */
  | { kind: "direct" }
  | { kind: "id"; id: number }
  /** one of these messages: ascending, as the user's unread and flagged lists are (callers sort others once) */
  | { kind: "ids"; in: readonly number[] }
  /** Zulip's full-text search of the content and the topic (answered by the search engine) */
  | { kind: "search"; operand: string }
  /** a channel message in a topic whose name starts with Zulip's RESOLVED_TOPIC_PREFIX */
  | { kind: "resolved" }
  | { kind: "has"; feature: ContentFeature }
  /** a channel message in one of these topics */
  | { kind: "topics"; topics: TopicRef[] }
  /**
   * Zulip's muting (exclude_stream_and_topic_mutes): a message in a muted
   * topic, or in a muted channel unless its topic is unmuted or followed.
   */
  | { kind: "muted"; channels: number[]; topics: TopicRef[]; exempt: TopicRef[] }
  /** matches no message (a direct conversation that does not exist) */
  | { kind: "nothing" }
  | { kind: "not"; term: NarrowCondition };

export interface NarrowQuery {
  /** conditions that must all hold */
  terms: NarrowCondition[];
  /**
   * Whether the narrow reaches beyond the user's personal history: Zulip's
   * ok_to_include_history (a readable channel with shared history, no is: filter but is:resolved).
   */
  includeHistory: boolean;
}

/** is: operands that name stored personal flags, any of which the message must have (Zulip's by_is). */
const FLAG_OPERANDS: Record<string, readonly string[]> = {
  starred: ["starred"],
  alerted: ["has_alert_word"],
};

const HAS_OPERANDS: readonly string[] = ["attachment", "image", "link", "reaction"] satisfies ContentFeature[];

/** Zulip's Message.MAX_POSSIBLE_MESSAGE_ID: a larger id: operand is refused. */
const MAX_POSSIBLE_MESSAGE_ID = 2 ** 31 - 1;

const { MUTED, UNMUTED, FOLLOWED } = messaging.VISIBILITY_POLICY;

/** Python's str() of an operand (a name, an id or a list of ids), as Zulip's error messages show it. */
const pythonStr = (operand: NarrowTerm["operand"]): string =>
  Array.isArray(operand) ? `[${operand.join(", ")}]` : `${operand}`;

const asList = (operand: NarrowTerm["operand"]): Array<string | number> =>
  Array.isArray(operand)
    ? operand
    : typeof operand === "number"
      ? [operand]
      : operand
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
          .map((s) => (/^\d+$/.test(s) ? Number(s) : s));

/** One user given by id or email; Zulip's "unknown user" when there is none. */
async function oneUser(operand: NarrowTerm["operand"], r: NarrowResolver): Promise<number> {
  const ids = await r.users([operand as string | number]);
  if (!ids) throw badNarrow(`unknown user ${pythonStr(operand)}`);
  return ids[0]!;
}

/** The user's muted channels and topics, and the topics their muted channels still show (is:muted, in:home). */
async function muting(r: NarrowResolver): Promise<NarrowCondition> {
  const [channels, topics, exempt] = await Promise.all([
    r.mutedChannels(),
    r.topicsWithPolicy([MUTED]),
    r.topicsWithPolicy([UNMUTED, FOLLOWED]),
  ]);
  return { kind: "muted", channels, topics, exempt };
}

async function isCondition(operand: string, r: NarrowResolver): Promise<NarrowCondition> {
  const flags = FLAG_OPERANDS[operand];
  if (flags) return { kind: "ids", in: await r.flagged(flags) };
  switch (operand) {
    case "dm":
      return { kind: "direct" };
    case "mentioned":
      return { kind: "ids", in: await r.mentioned() };
    case "unread":
      return { kind: "ids", in: await r.unread() };
    case "resolved":
      return { kind: "resolved" };
    case "followed":
      return { kind: "topics", topics: await r.topicsWithPolicy([FOLLOWED]) };
    case "muted":
      return muting(r);
    default:
      throw badNarrow(`unknown 'is' operand ${operand}`);
  }
}

async function condition(
  t: NarrowTerm,
  r: NarrowResolver,
): Promise<{ cond: NarrowCondition | null; history?: boolean }> {
  const { operator, operand } = t;
  switch (operator) {
    case "channel": {
      const ch = await r.channel(
        typeof operand === "string" && /^\d+$/.test(operand) ? Number(operand) : (operand as string | number),
      );
      if (!ch) throw badNarrow(`unknown channel ${pythonStr(operand)}`);
      return { cond: { kind: "channel", streamId: ch.streamId }, history: ch.fullHistory };
    }
    case "channels":
      if (operand !== "public" && operand !== "web-public") throw badNarrow(`unknown channels operand ${operand}`);
      return { cond: { kind: "channels", streamIds: await r.publicChannels(operand === "web-public") }, history: true };
    case "topic": {
      const topic = (operand as string).trim() === r.emptyTopicName ? "" : (operand as string).trim();
      return { cond: { kind: "topic", key: topic.toLowerCase() } };
    }
    case "sender":
      return { cond: { kind: "sender", userId: await oneUser(operand, r) } };
    case "dm": {
      const list = asList(operand);
      if (!list.length) return { cond: { kind: "nothing" } };
      const ids = await r.users(list);
      if (!ids) throw badNarrow(`unknown user in ${pythonStr(operand)}`);
      const recipientId = await r.conversation([...ids, r.userId]);
      return { cond: recipientId === null ? { kind: "nothing" } : { kind: "conversation", recipientId } };
    }
    case "dm-including": {
      // the user's own id means every direct message (Zulip's by_dm_including)
      const userId = await oneUser(operand, r);
      return { cond: userId === r.userId ? { kind: "direct" } : { kind: "dm-including", userIds: [userId] } };
    }
    case "group-pm-with":
      return { cond: { kind: "dm-including", userIds: [await oneUser(operand, r)], groupOnly: true } };
    case "is":
      return { cond: await isCondition(operand as string, r) };
    case "in":
      if (operand === "all") return { cond: null };
      if (operand !== "home") throw badNarrow(`unknown 'in' operand ${operand}`);
      return { cond: { kind: "not", term: await muting(r) } };
    case "has":
      if (!HAS_OPERANDS.includes(operand as string)) throw badNarrow(`unknown 'has' operand ${operand}`);
      return { cond: { kind: "has", feature: operand as ContentFeature } };
    case "id": {
      const digits = String(operand);
      if (!/^\d+$/.test(digits) || Number(digits) > MAX_POSSIBLE_MESSAGE_ID) throw badNarrow("Invalid message ID");
      return { cond: { kind: "id", id: Number(digits) } };
    }
    case "near":
      // Zulip's by_near: the client's anchor, not a filter
      return { cond: null };
    case "search": {
      // a blank operand was refused with the others (checkOperand)
      return { cond: { kind: "search", operand: operand as string } };
    }
    default:
      throw badNarrow(`unknown operator ${operator}`);
  }
}

/** Operators that name a conversation, for Zulip's can_narrow_define_conversation. */
const definesConversation = (terms: NarrowTerm[]): boolean =>
  terms.some((t) => t.operator === "dm") ||
  (terms.some((t) => t.operator === "channel") && terms.some((t) => t.operator === "topic"));

/**
 * Zulip's update_narrow_terms_containing_with_operator: `with` names a message,
 * and the narrow becomes that message's conversation where it is now (a link
 * that survives moves). A message the user may not see leaves the other terms
 * as they are when they name a conversation themselves.
 */
async function resolveWith(terms: NarrowTerm[], r: NarrowResolver): Promise<NarrowTerm[]> {
  const withTerms = terms.filter((t) => t.operator === "with");
  if (withTerms.length > 1) throw badCombination("Duplicate 'with' operators.");
  if (!withTerms.length) return terms;
  const rest = terms.filter((t) => t !== withTerms[0]);
  const operand = withTerms[0]!.operand;
  // Python's int(): an integer, or a string of one with optional sign and surrounding spaces
  if (typeof operand === "string" ? !/^\s*[+-]?\d+\s*$/.test(operand) : !Number.isInteger(operand)) {
    throw badNarrow("Invalid 'with' operator");
  }
  const target = await r.message(Number(operand));
  if (!target) {
    if (definesConversation(rest)) return rest;
    throw badNarrow("Invalid 'with' operator");
  }
  const others = rest.filter((t) => !["channel", "topic", "dm"].includes(t.operator));
  const term = (operator: string, operand: NarrowTerm["operand"]): NarrowTerm => ({
    operator,
    operand,
    negated: false,
  });
  if ("streamId" in target) return [term("channel", target.streamId), term("topic", target.topic), ...others];
  const partners = target.participants.filter((id) => id !== r.userId);
  return [term("dm", partners.length ? partners : [r.userId]), ...others];
}

/** Whether a term restricts to channel messages (1) or direct messages (-1), for Zulip's check_not_both_channel_and_dm_narrow. */
function messageKind(t: NarrowTerm): 1 | -1 | 0 {
  if (t.operator === "is" && t.operand === "dm") return t.negated ? 1 : -1;
  if (t.negated) return 0;
  if (["channel", "channels", "topic"].includes(t.operator)) return 1;
  if (["dm", "dm-including", "group-pm-with"].includes(t.operator)) return -1;
  return 0;
}

/** Translates a narrow into the conditions on messages it means, limited to what the user may see. */
export async function narrowToQuery(narrow: NarrowTerm[], r: NarrowResolver): Promise<NarrowQuery> {
  const terms = await resolveWith(narrow, r);
  const conds: NarrowCondition[] = [];
  let includeHistory = false;
  const kinds = new Set<number>();
  for (const t of terms) {
    kinds.add(messageKind(t));
    if (kinds.has(1) && kinds.has(-1)) throw badNarrow("No message can be both a channel message and direct message");
    const { cond, history } = await condition(t, r);
    if (history !== undefined && !t.negated) includeHistory = history;
    if (cond) conds.push(t.negated ? { kind: "not", term: cond } : cond);
  }
  // Zulip's ok_to_include_history: is: filters other than is:resolved are properties of the user's own rows.
  if (terms.some((t) => t.operator === "is" && t.operand !== "resolved")) includeHistory = false;
  // Without a readable channel, a narrow searches the user's personal history (what they received).
  if (!includeHistory) conds.unshift({ kind: "receivers", userId: r.userId, ...(await r.received()) });
  return { terms: conds, includeHistory };
}
