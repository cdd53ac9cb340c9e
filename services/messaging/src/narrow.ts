import { ZulipError } from "@teamchat/shared";

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
  new ZulipError("BAD_NARROW", `Invalid narrow operator: ${desc}`, 400);

/** Old operator names Zulip still accepts. */
const ALIASES: Record<string, string> = {
  stream: "channel",
  streams: "channels",
  subject: "topic",
  "pm-with": "dm",
  from: "sender",
};

export function normalizeNarrow(raw: RawTerm[]): NarrowTerm[] {
  return raw.map((t) => {
    const [operator, operand, negated] = Array.isArray(t) ? [t[0], t[1], false] : [t.operator, t.operand, !!t.negated];
    const op = operator.startsWith("-") ? operator.slice(1) : operator;
    return {
      operator: ALIASES[op] ?? op,
      operand: op === "is" && operand === "private" ? "dm" : operand,
      negated: negated || operator.startsWith("-"),
    };
  });
}

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
  /** ids of the user's messages that have a personal flag */
  flagged(flag: string): Promise<number[]>;
  /** ids of the user's unread messages, ascending */
  unread(): Promise<number[]>;
  /** public channels the user may read in full (channels:public) */
  publicChannels(): Promise<number[]>;
}

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
  /** the user received it: their personal history */
  | { kind: "receivers"; userId: number }
  /** a direct message of this conversation */
  | { kind: "conversation"; recipientId: number }
  /** a direct message whose participants include all these users */
  | { kind: "dm-including"; userIds: number[] }
  /** any direct message */
  | { kind: "direct" }
  | { kind: "id"; id: number }
  | { kind: "ids"; in: number[] }
  /** Zulip's full-text search of the content and the topic (answered by the search engine) */
  | { kind: "search"; operand: string }
  /** matches no message (a direct conversation that does not exist) */
  | { kind: "nothing" }
  | { kind: "not"; term: NarrowCondition };

export interface NarrowQuery {
  /** conditions that must all hold */
  terms: NarrowCondition[];
  /**
   * Whether the narrow reaches beyond the user's personal history: Zulip's
   * ok_to_include_history (a readable channel with shared history, no flag filters).
   */
  includeHistory: boolean;
}

/** is: operands that name a personal flag the message must have */
const FLAG_OPERANDS: Record<string, string> = {
  starred: "starred",
  mentioned: "mentioned",
  alerted: "has_alert_word",
};

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

async function condition(
  t: NarrowTerm,
  r: NarrowResolver,
): Promise<{ cond: NarrowCondition | null; history?: boolean }> {
  const { operator, operand } = t;
  switch (operator) {
    case "channel": {
      if (Array.isArray(operand)) throw badNarrow("invalid channel operand");
      const ch = await r.channel(typeof operand === "string" && /^\d+$/.test(operand) ? Number(operand) : operand);
      if (!ch) throw badNarrow(`unknown channel ${operand}`);
      return { cond: { kind: "channel", streamId: ch.streamId }, history: ch.fullHistory };
    }
    case "channels":
      if (operand !== "public") throw badNarrow(`unknown channels operand ${String(operand)}`);
      return { cond: { kind: "channels", streamIds: await r.publicChannels() }, history: true };
    case "topic": {
      if (typeof operand !== "string") throw badNarrow("invalid topic operand");
      const topic = operand.trim() === r.emptyTopicName ? "" : operand.trim();
      return { cond: { kind: "topic", key: topic.toLowerCase() } };
    }
    case "sender": {
      if (Array.isArray(operand)) throw badNarrow("invalid sender operand");
      const ids = await r.users([operand]);
      if (!ids) throw badNarrow(`unknown user ${operand}`);
      return { cond: { kind: "sender", userId: ids[0]! } };
    }
    case "dm": {
      const ids = await r.users(asList(operand));
      if (!ids) throw badNarrow(`unknown user in ${JSON.stringify(operand)}`);
      const recipientId = await r.conversation([...ids, r.userId]);
      return { cond: recipientId === null ? { kind: "nothing" } : { kind: "conversation", recipientId } };
    }
    case "dm-including": {
      const ids = await r.users(asList(operand));
      if (!ids) throw badNarrow(`unknown user in ${JSON.stringify(operand)}`);
      return { cond: { kind: "dm-including", userIds: ids } };
    }
    case "is": {
      if (operand === "dm") return { cond: { kind: "direct" } };
      if (operand === "unread") return { cond: { kind: "ids", in: await r.unread() }, history: false };
      const flag = FLAG_OPERANDS[String(operand)];
      if (!flag) throw badNarrow(`unknown 'is' operand ${String(operand)}`);
      return { cond: { kind: "ids", in: await r.flagged(flag) }, history: false };
    }
    case "id": {
      const id = Number(operand);
      if (!Number.isInteger(id)) throw badNarrow(`invalid message ID ${String(operand)}`);
      return { cond: { kind: "id", id } };
    }
    case "search": {
      if (typeof operand !== "string") throw badNarrow("invalid search operand");
      return { cond: operand.trim() ? { kind: "search", operand } : null };
    }
    case "in":
      // in:home / in:all select by muting, which this server has none of yet.
      if (operand !== "home" && operand !== "all") throw badNarrow(`unknown 'in' operand ${String(operand)}`);
      return { cond: null };
    default:
      throw badNarrow(`unknown operator ${operator}`);
  }
}

/** Translates a narrow into the conditions on messages it means, limited to what the user may see. */
export async function narrowToQuery(terms: NarrowTerm[], r: NarrowResolver): Promise<NarrowQuery> {
  const conds: NarrowCondition[] = [];
  let includeHistory = false;
  let flagFilter = false;
  for (const t of terms) {
    const { cond, history } = await condition(t, r);
    if (history === false) flagFilter ||= t.operator === "is";
    if (history && !t.negated) includeHistory = true;
    if (cond) conds.push(t.negated ? { kind: "not", term: cond } : cond);
  }
  includeHistory &&= !flagFilter;
  // Without a readable channel, a narrow searches the user's personal history (what they received).
  if (!includeHistory) conds.unshift({ kind: "receivers", userId: r.userId });
  return { terms: conds, includeHistory };
}
