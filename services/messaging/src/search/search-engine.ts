import type { Schema } from "mongoose";
import { escapeHtml } from "@teamchat/shared";
import type { NarrowCondition } from "../narrow/conditions";
import type { MessageDoc } from "../messages/message.schema";

/** A search narrow's matches in one message, as GET /messages and /messages/matches_narrow return them. */
export interface SearchMatch {
  match_content: string;
  match_subject: string;
}

/**
 * The full-text index that answers `search:` narrows, kept current by
 * MessageRepository on every send, edit, move and delete.
 */
export interface SearchEngine {
  /** which engine this is, for the logs */
  readonly name: string;
  /** the words a search leaves out (register's stop_words), as far as the engine tells them */
  readonly stopWords: readonly string[];
  /**
   * Whether the engine's index also selects messages by this condition (besides
   * search), so that a narrow with it is read a page at a time through the
   * engine rather than by testing the history's rows in memory.
   */
  selects(c: NarrowCondition): boolean;
  /** the messages' schema with the engine's index, when the engine is an index of the messages themselves */
  readonly messageSchema?: Schema<MessageDoc>;
  /**
   * Ids of up to `limit` messages that match every search condition of `narrow`
   * (negated ones included), walking away from `from` (exclusive) in id order.
   * The engine may also apply the narrow's other conditions; the caller tests
   * them again on the messages, so an engine may leave any of them out.
   */
  walk(realmId: number, narrow: NarrowCondition[], from: number, direction: 1 | -1, limit: number): Promise<number[]>;
  /** Each message's content and topic with the search's matches marked (Zulip's get_search_fields). */
  highlight(narrow: NarrowCondition[], messages: MessageDoc[]): Promise<Map<number, SearchMatch>>;
  /** Adds these messages to the index; what it holds of them already is replaced, or with "keep" kept. */
  index(messages: MessageDoc[], existing?: "replace" | "keep"): Promise<void>;
  remove(realmId: number, messageIds: number[]): Promise<void>;
  /**
   * The id below which stored messages may be missing from the index, null when
   * none are: an index made beside a stored history records, at its first
   * start, that everything below the newest id then (`newest`) is to be added.
   */
  backfillBelow(newest: number): Promise<number | null>;
  /** Records that every message below backfillBelow's id is in the index. */
  backfillDone(): Promise<void>;
  close(): Promise<void>;
}

type SearchCondition = Extract<NarrowCondition, { kind: "search" }>;

export const isSearch = (c: NarrowCondition): c is SearchCondition => c.kind === "search";

/** A search condition, or a negated one. */
export const isSearchTerm = (c: NarrowCondition): boolean => isSearch(c) || (c.kind === "not" && isSearch(c.term));

/**
 * The narrow's search operands as one query, as Zulip's add_narrow_conditions
 * joins them: what its matches are highlighted with.
 */
export const searchText = (narrow: NarrowCondition[]): string =>
  narrow
    .filter(isSearch)
    .map((c) => c.operand)
    .join(" ");

/** The "quoted phrases" of a search operand, each of which must appear as written (Zulip's _by_search_tsearch). */
export const quotedPhrases = (operand: string): string[] =>
  [...operand.matchAll(/"[^"]+"|\S+/g)].flatMap((m) =>
    m[0].length > 1 && m[0].startsWith('"') && m[0].endsWith('"') ? [m[0].slice(1, -1)] : [],
  );

/**
 * Zulip's highlight_string (zerver/views/message_fetch.py): each match, given as
 * [offset, length] in `text`, wrapped in `<span class="highlight">`, except a
 * match that ends inside an HTML tag.
 */
export function highlightString(text: string, locs: Array<[number, number]>): string {
  let pos = 0;
  let inTag = false;
  let result = "";
  for (const [offset, length] of locs) {
    const prefix = text.slice(pos, offset);
    const match = text.slice(offset, offset + length);
    for (const ch of prefix + match) {
      if (ch === "<") inTag = true;
      else if (ch === ">") inTag = false;
    }
    result += inTag ? prefix + match : `${prefix}<span class="highlight">${match}</span>`;
    pos = offset + length;
  }
  return result + text.slice(pos);
}

/** A search narrow's result fields when nothing in the message matched (the text as it is). */
export const unhighlighted = (m: Pick<MessageDoc, "renderedContent" | "topic">): SearchMatch => ({
  match_content: m.renderedContent,
  match_subject: escapeHtml(m.topic),
});
