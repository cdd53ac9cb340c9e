import { Pool } from "pg";
import { escapeHtml, messaging } from "@teamchat/shared";
import type { NarrowCondition } from "../narrow/conditions";
import { contentFeatures } from "../messages/content-features";
import type { MessageDoc } from "../messages/message.schema";
import {
  highlightString,
  isSearch,
  quotedPhrases,
  searchText,
  unhighlighted,
  type SearchEngine,
  type SearchMatch,
} from "./search-engine";
import { OPEN } from "../user-messages/read-state";

/**
 * PostgreSQL's English configuration: Snowball's English stemmer and its stop
 * words, as Zulip's zulip.english_us_search falls back to without its hunspell
 * dictionary.
 */
const CONFIG = "english";

/**
 * ts_headline's markers of a match; they cannot appear in rendered content or an
 * escaped topic (Zulip's TS_START / TS_STOP).
 */
const TS_START = "<ts-match>";
const TS_STOP = "</ts-match>";
const HEADLINE_OPTIONS = `HighlightAll = TRUE, StartSel = ${TS_START}, StopSel = ${TS_STOP}`;

/**
 * The topic as HTML, as it is highlighted, in the indexed text: Zulip indexes the
 * raw topic, in which "<word>" reads as a tag and is not searchable.
 */
const ESCAPED_TOPIC = "replace(replace(replace(topic, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')";

/** Zulip's ts_locs_array: the [offset, length] of each match marked in ts_headline's output. */
function matchLocations(delimited: string): Array<[number, number]> {
  const locs: Array<[number, number]> = [];
  const parts = delimited.split(TS_START);
  let offset = parts[0]!.length;
  for (const part of parts.slice(1)) {
    const length = part.indexOf(TS_STOP);
    locs.push([offset, length]);
    offset += part.length - TS_STOP.length;
  }
  return locs;
}

/** An index entry replaced by a message's current fields (its id, organization and sender never change). */
const REPLACE = `UPDATE SET
  stream_id = EXCLUDED.stream_id, recipient_id = EXCLUDED.recipient_id, topic = EXCLUDED.topic,
  topic_key = EXCLUDED.topic_key, content = EXCLUDED.content, rendered_content = EXCLUDED.rendered_content,
  receivers = EXCLUDED.receivers, received_by_subscription = EXCLUDED.received_by_subscription, has_link = EXCLUDED.has_link, has_image = EXCLUDED.has_image,
  has_attachment = EXCLUDED.has_attachment`;

/**
 * Text as PostgreSQL can store it: it refuses NUL, which a topic stored before
 * topics were checked may hold (a search cannot look for it anyway).
 */
const storable = (text: string): string => text.replaceAll("\0", "");

/** The has: operands the index holds a column for (has:reaction is tested on the messages). */
const HAS_COLUMNS = { link: "has_link", image: "has_image", attachment: "has_attachment" } as const;

/**
 * A resolved topic, as the partial index messages_resolved states it (the
 * planner uses that index only for this very expression).
 */
const RESOLVED = `stream_id IS NOT NULL AND topic LIKE '${messaging.RESOLVED_TOPIC_PREFIX}%'`;

const likePattern = (phrase: string): string => `%${phrase.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Builds a WHERE clause's conditions with numbered parameters. */
class Conditions {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(sql: string | null): void {
    if (sql) this.parts.push(sql);
  }

  get sql(): string {
    return this.parts.length ? this.parts.join(" AND ") : "TRUE";
  }
}

/**
 * Zulip's search: every word of the operand, stemmed, stop words dropped
 * (plainto_tsquery), in the topic or the content, and each quoted phrase as
 * written in the content or the topic.
 */
function searchSql(operand: string, q: Conditions): string {
  const tsquery = `plainto_tsquery('${CONFIG}', ${q.param(operand)})`;
  const phrases = quotedPhrases(operand).map((p) => {
    const like = q.param(likePattern(p));
    return `(content ILIKE ${like} OR topic ILIKE ${like})`;
  });
  return [`search_tsvector @@ ${tsquery}`, ...phrases].join(" AND ");
}

/** One narrow condition in SQL, or null for a kind the index does not hold (tested on the messages instead). */
function conditionSql(c: NarrowCondition, q: Conditions): string | null {
  switch (c.kind) {
    case "search":
      return searchSql(c.operand, q);
    case "channel":
      return `stream_id = ${q.param(c.streamId)}`;
    case "channels":
      return `stream_id = ANY(${q.param(c.streamIds)}::int[])`;
    case "topic":
      return `stream_id IS NOT NULL AND topic_key = ${q.param(c.key)}`;
    case "sender":
      return `sender_id = ${q.param(c.userId)}`;
    case "receivers": {
      // stored receivers, or a message received by subscription within one of the user's intervals
      const ranges: string[] = [];
      for (const [streamId, intervals] of c.channels) {
        for (let i = 0; i < intervals.length; i += 2) {
          const until = intervals[i + 1]! >= OPEN ? "" : ` AND message_id <= ${q.param(intervals[i + 1]!)}`;
          ranges.push(`(stream_id = ${q.param(streamId)} AND message_id > ${q.param(intervals[i]!)}${until})`);
        }
      }
      const rows = c.rows?.length ? [`message_id = ANY(${q.param(c.rows)}::bigint[])`] : [];
      const bySubscription = ranges.length ? [`(received_by_subscription AND (${ranges.join(" OR ")}))`] : [];
      return `(${[`receivers @> ARRAY[${q.param(c.userId)}::int]`, ...bySubscription, ...rows].join(" OR ")})`;
    }
    case "conversation":
      return `stream_id IS NULL AND recipient_id = ${q.param(c.recipientId)}`;
    case "dm-including":
      return `stream_id IS NULL AND receivers @> ${q.param(c.userIds)}::int[]`;
    case "direct":
      return "stream_id IS NULL";
    case "id":
      return `message_id = ${q.param(c.id)}`;
    case "ids":
      return `message_id = ANY(${q.param(c.in)}::bigint[])`;
    case "has":
      return c.feature === "reaction" ? null : HAS_COLUMNS[c.feature];
    case "resolved":
      return RESOLVED;
    case "nothing":
      return "FALSE";
    case "not": {
      const term = conditionSql(c.term, q);
      // IS NOT TRUE: a condition on a column a message lacks (a direct message's stream_id) is NULL, not false
      return term === null ? null : `(${term}) IS NOT TRUE`;
    }
    default:
      return null;
  }
}

/**
 * The English configuration's stop word file, read on the server: reading a
 * server file takes a superuser (as the PostgreSQL started beside SecantusDB
 * is), otherwise none are known.
 */
async function stopWordsOf(pool: Pool): Promise<string[]> {
  try {
    const { rows } = await pool.query<{ words: string }>(
      `SELECT pg_read_file((SELECT setting FROM pg_config WHERE name = 'SHAREDIR') || '/tsearch_data/${CONFIG}.stop') AS words`,
    );
    return rows[0]!.words.split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Search served by PostgreSQL's full-text search, Zulip's own engine: one row
 * per message with a stored tsvector of its topic and rendered content (as
 * Zulip's search_tsvector), a GIN index on it, and the columns narrows
 * select on, so that a page of results is one indexed query whatever the
 * history's size. Matches are marked with ts_headline, as Zulip's
 * ts_locs_array does. Each organization's database prefix gets its own schema.
 */
export class PostgresSearch implements SearchEngine {
  readonly name = "postgresql";

  private constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    readonly stopWords: readonly string[],
  ) {}

  selects(c: NarrowCondition): boolean {
    return (c.kind === "has" && c.feature !== "reaction") || c.kind === "resolved";
  }

  private get table(): string {
    return `${this.schema}.messages`;
  }

  static async open(url: string, schema: string): Promise<PostgresSearch> {
    // each connection is a PostgreSQL process: a few serve short queries from an instance
    const pool = new Pool({ connectionString: url, max: 4 });
    const quoted = `"${schema.replace(/"/g, '""')}"`;
    const table = `${quoted}.messages`;
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // instances starting together would race to create the same schema
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
        message_id bigint PRIMARY KEY,
        realm_id integer NOT NULL,
        stream_id integer,
        recipient_id integer NOT NULL,
        sender_id integer NOT NULL,
        topic text NOT NULL,
        topic_key text NOT NULL,
        content text NOT NULL,
        rendered_content text NOT NULL,
        receivers integer[] NOT NULL,
        has_link boolean NOT NULL,
        has_image boolean NOT NULL,
        has_attachment boolean NOT NULL,
        search_tsvector tsvector GENERATED ALWAYS AS (to_tsvector('${CONFIG}', ${ESCAPED_TOPIC} || ' ' || rendered_content)) STORED
      )`);
      await client.query(`CREATE INDEX IF NOT EXISTS messages_search ON ${table} USING gin (search_tsvector)`);
      // finer word statistics: the planner then sees how rare a rare word is, and reads its few matches
      // through the GIN index instead of walking the ids
      await client.query(`ALTER TABLE ${table} ALTER COLUMN search_tsvector SET STATISTICS 1000`);
      // added after the table: an index made before it holds none received by subscription, as nothing was
      await client.query(
        `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS received_by_subscription boolean NOT NULL DEFAULT false`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS messages_receivers ON ${table} USING gin (receivers)`);
      await client.query(
        `CREATE INDEX IF NOT EXISTS messages_stream ON ${table} (realm_id, stream_id, topic_key, message_id)`,
      );
      // has: and is:resolved narrows read their few messages newest first from these, whatever the history
      for (const column of Object.values(HAS_COLUMNS)) {
        await client.query(
          `CREATE INDEX IF NOT EXISTS messages_${column} ON ${table} (realm_id, message_id) WHERE ${column}`,
        );
      }
      await client.query(
        `CREATE INDEX IF NOT EXISTS messages_resolved ON ${table} (realm_id, message_id) WHERE ${RESOLVED}`,
      );
      // one row: the id below which stored messages are still to be indexed, NULL once they all are
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quoted}.backfill (id integer PRIMARY KEY CHECK (id = 1), below bigint)`,
      );
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK");
      throw err;
    } finally {
      client.release();
    }
    return new PostgresSearch(pool, quoted, await stopWordsOf(pool));
  }

  async walk(
    realmId: number,
    narrow: NarrowCondition[],
    from: number,
    direction: 1 | -1,
    limit: number,
  ): Promise<number[]> {
    const q = new Conditions();
    q.add(`realm_id = ${q.param(realmId)}`);
    q.add(`message_id ${direction < 0 ? "<" : ">"} ${q.param(Math.min(from, Number.MAX_SAFE_INTEGER))}`);
    // the search operands are one search, as Zulip's add_narrow_conditions joins them: a stop word alone is no
    // operand that matches nothing
    const text = searchText(narrow);
    if (text) q.add(searchSql(text, q));
    for (const c of narrow) if (!isSearch(c)) q.add(conditionSql(c, q));
    const { rows } = await this.pool.query<{ message_id: string }>(
      `SELECT message_id FROM ${this.table} WHERE ${q.sql}
       ORDER BY message_id ${direction < 0 ? "DESC" : "ASC"} LIMIT ${q.param(limit)}`,
      q.params,
    );
    return rows.map((r) => Number(r.message_id));
  }

  async highlight(narrow: NarrowCondition[], messages: MessageDoc[]): Promise<Map<number, SearchMatch>> {
    const text = searchText(narrow);
    if (!text || !messages.length) return new Map(messages.map((m) => [m.messageId, unhighlighted(m)]));
    const topics = messages.map((m) => escapeHtml(m.topic));
    const { rows } = await this.pool.query<{ content: string; topic: string }>(
      `SELECT ts_headline('${CONFIG}', content, query, $4) AS content, ts_headline('${CONFIG}', topic, query, $4) AS topic
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS m(content, topic, n), plainto_tsquery('${CONFIG}', $3) AS query
       ORDER BY n`,
      [messages.map((m) => m.renderedContent), topics, text, HEADLINE_OPTIONS],
    );
    return new Map(
      messages.map((m, i) => [
        m.messageId,
        {
          match_content: highlightString(m.renderedContent, matchLocations(rows[i]!.content)),
          match_subject: highlightString(topics[i]!, matchLocations(rows[i]!.topic)),
        },
      ]),
    );
  }

  async index(messages: MessageDoc[], existing: "replace" | "keep" = "replace"): Promise<void> {
    if (!messages.length) return;
    const column = <T>(f: (m: MessageDoc) => T) => messages.map(f);
    // from the rendering itself: a message stored before its features were kept has none stored
    const features = messages.map((m) => contentFeatures(m.renderedContent));
    await this.pool.query(
      `INSERT INTO ${this.table}
         (message_id, realm_id, stream_id, recipient_id, sender_id, topic, topic_key, content, rendered_content, receivers,
          received_by_subscription, has_link, has_image, has_attachment)
       SELECT m.message_id, m.realm_id, m.stream_id, m.recipient_id, m.sender_id, m.topic, m.topic_key, m.content,
              m.rendered_content, ARRAY(SELECT jsonb_array_elements_text(m.receivers)::int),
              m.received_by_subscription, m.has_link, m.has_image, m.has_attachment
       FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[],
                   $9::text[], $10::jsonb[], $11::boolean[], $12::boolean[], $13::boolean[], $14::boolean[])
         AS m(message_id, realm_id, stream_id, recipient_id, sender_id, topic, topic_key, content, rendered_content, receivers,
              received_by_subscription, has_link, has_image, has_attachment)
       ON CONFLICT (message_id) DO ${existing === "keep" ? "NOTHING" : REPLACE}`,
      [
        column((m) => m.messageId),
        column((m) => m.realmId),
        column((m) => m.streamId),
        column((m) => m.recipientId),
        column((m) => m.senderId),
        column((m) => storable(m.topic)),
        column((m) => storable(m.topicKey)),
        column((m) => storable(m.content)),
        column((m) => storable(m.renderedContent)),
        column((m) => JSON.stringify(m.receivers)),
        column((m) => m.receivedBySubscription === true),
        features.map((f) => f.hasLink),
        features.map((f) => f.hasImage),
        features.map((f) => f.hasAttachment),
      ],
    );
  }

  async remove(realmId: number, messageIds: number[]): Promise<void> {
    if (!messageIds.length) return;
    await this.pool.query(`DELETE FROM ${this.table} WHERE realm_id = $1 AND message_id = ANY($2::bigint[])`, [
      realmId,
      messageIds,
    ]);
  }

  async backfillBelow(newest: number): Promise<number | null> {
    await this.pool.query(
      `INSERT INTO ${this.schema}.backfill (id, below) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`,
      [newest + 1],
    );
    const { rows } = await this.pool.query<{ below: string | null }>(`SELECT below FROM ${this.schema}.backfill`);
    return rows[0]!.below === null ? null : Number(rows[0]!.below);
  }

  async backfillDone(): Promise<void> {
    await this.pool.query(`UPDATE ${this.schema}.backfill SET below = NULL`);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
