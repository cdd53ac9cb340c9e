import type { Connection } from "mongoose";
import { escapeHtml } from "@teamchat/shared";
import { badNarrow, type NarrowCondition } from "../narrow/conditions";
import { messageSchema, type MessageDoc } from "../messages/message.schema";
import {
  highlightString,
  isSearch,
  searchText,
  unhighlighted,
  type SearchEngine,
  type SearchMatch,
} from "./search-engine";

/** The text index: English, MongoDB's default language; the organization first, as every query names it. */
const TEXT_INDEX = { realmId: 1, topic: "text", content: "text" } as const;
const TEXT_INDEX_OPTIONS = { name: "search" };

/** The [offset, length] of each case-insensitive occurrence of the search's words. */
function wordLocations(text: string, words: string[]): Array<[number, number]> {
  if (!words.length) return [];
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
  return [...text.matchAll(pattern)].map((m) => [m.index, m[0].length]);
}

/**
 * Search served by MongoDB's text index, where the database is MongoDB: the
 * messages collection itself is indexed (English stemming and stop words), so
 * sends, edits, moves and deletes keep it current with no write of its own. The
 * index is in the messages' schema too, or building the schema's indexes
 * (syncIndexes) would drop it.
 * MongoDB has one text condition per query and no highlighting outside Atlas
 * Search: a negated search is refused, and matches are marked where the
 * search's words appear as typed.
 */
export class MongoTextSearch implements SearchEngine {
  readonly name = "mongodb-text";
  // MongoDB does not list its stop words
  readonly stopWords = [];
  // MongoDB serves the other narrows from the messages' own compound indexes
  readonly selects = () => false;
  readonly messageSchema = messageSchema.clone().index(TEXT_INDEX, TEXT_INDEX_OPTIONS);

  private constructor(private readonly conn: Connection) {}

  /** The text index made (or found); throws when the database has no text indexes (SecantusDB). */
  static async open(conn: Connection): Promise<MongoTextSearch> {
    await conn.collection("messages").createIndex(TEXT_INDEX, TEXT_INDEX_OPTIONS);
    return new MongoTextSearch(conn);
  }

  async walk(
    realmId: number,
    narrow: NarrowCondition[],
    from: number,
    direction: 1 | -1,
    limit: number,
  ): Promise<number[]> {
    if (narrow.some((c) => c.kind === "not" && isSearch(c.term))) {
      throw badNarrow("a negated search is not supported by this server's search engine");
    }
    const rows = await this.conn
      .collection<MessageDoc>("messages")
      .find(
        {
          realmId,
          messageId: direction < 0 ? { $lt: from } : { $gt: from },
          $text: { $search: searchText(narrow) },
        },
        { projection: { messageId: 1 } },
      )
      .sort({ messageId: direction })
      .limit(limit)
      .toArray();
    return rows.map((r) => r.messageId);
  }

  highlight(narrow: NarrowCondition[], messages: MessageDoc[]): Promise<Map<number, SearchMatch>> {
    const words = [...searchText(narrow).matchAll(/"([^"]+)"|(\S+)/g)].map((m) => (m[1] ?? m[2])!);
    return Promise.resolve(
      new Map(
        messages.map((m) => {
          const topic = escapeHtml(m.topic);
          const match = words.length
            ? {
                match_content: highlightString(m.renderedContent, wordLocations(m.renderedContent, words)),
                match_subject: highlightString(topic, wordLocations(topic, words)),
              }
            : unhighlighted(m);
          return [m.messageId, match];
        }),
      ),
    );
  }

  // The index is the messages collection's own: nothing to write, nothing missing.
  async index(): Promise<void> {}
  async remove(): Promise<void> {}
  backfillBelow(): Promise<number | null> {
    return Promise.resolve(null);
  }
  async backfillDone(): Promise<void> {}
  async close(): Promise<void> {}
}
