/**
 * The bulk path for a large history: messaging's documents written directly with the
 * MongoDB driver (mongoose's copy of it) into messaging's database, because the API
 * sends too slowly for it (docs/adr/0030-bench-method.md). It must write exactly what
 * services/messaging/src/messages/message.schema.ts defines (a channel message has no row or list
 * of receivers: its receivers are the members whose read state's intervals hold it, and each one's read
 * state in the channel, user-messages/read-state.schema.ts, gets its
 * watermark moved as marking read would; topics/topic.schema.ts' row per topic; and the channel's runs,
 * messages/channel-run.schema.ts, as sends append to them), with ids taken from the `counters`
 * document `{_id: "message", seq}` as packages/shared/src/ids.ts allocates them.
 * It copies the fixed fields from a message the API wrote (the template) and refuses
 * to run when that message's fields differ from the ones written here; the caller
 * then checks that GET /messages returns what was written. Where search is
 * PostgreSQL's (SEARCH_URL), the messages are added to its index as messaging's
 * sends add them.
 */
import { mongo } from "mongoose";
import type { MessageDoc } from "../services/messaging/src/messages/message.schema";
import { contentFeatures } from "../services/messaging/src/messages/content-features";
import { fullRuns } from "../services/messaging/src/messages/channel-run.repository";
import { PostgresSearch } from "../services/messaging/src/search/postgres-search";
import { readStateId } from "../services/messaging/src/user-messages/read-state.schema";
import { OPEN } from "../services/messaging/src/user-messages/read-state";

/** The fields of a `messages` document and of a `readstates` document, as the schemas define them today. */
export const MESSAGE_FIELDS = [
  "_id",
  "realmId",
  "messageId",
  "senderId",
  "type",
  "recipientId",
  "streamId",
  "topic",
  "topicKey",
  "receivers",
  "receivedBySubscription",
  "content",
  "renderedContent",
  "hasLink",
  "hasImage",
  "hasAttachment",
  "timestamp",
  "client",
  "reactions",
] as const;
export const READ_STATE_FIELDS = [
  "_id",
  "realmId",
  "userId",
  "streamId",
  "watermark",
  "exceptions",
  "intervals",
  "version",
] as const;

export const CHANNEL_RUN_FIELDS = [
  "_id",
  "realmId",
  "streamId",
  "since",
  "minId",
  "maxId",
  "count",
  "ids",
  "senders",
  "topics",
  "wildcards",
  "version",
] as const;

export interface SeedPlan {
  mongoUrl: string;
  /** `<MONGO_DB_PREFIX>_messaging` */
  dbName: string;
  /** the search engine's PostgreSQL, when search is served there (SEARCH_URL) */
  searchUrl?: string;
  /** id of a channel message sent through the API: its realm, channel, sender and receivers are copied */
  templateMessageId: number;
  count: number;
  /** content of the n-th seeded message (1-based) */
  content: (n: number) => string;
  /** content(n) rendered, as the Markdown renderer would store it */
  rendered: (n: number) => string;
  topic: (n: number) => string;
  /** the last seeded message (1-based n) user `userId` has read, every one before it too; 0 for none */
  readThrough: (userId: number) => number;
  progress: (line: string) => void;
}

export class SchemaDrift extends Error {}

/** messages per insertMany: SecantusDB takes large ones more slowly per document (and holds each whole in memory) */
const BATCH = 500;

const sameFields = (doc: object, fields: readonly string[]) =>
  Object.keys(doc).sort().join(",") === [...fields].sort().join(",");

/** Writes `count` messages (and moves their receivers' read states); returns the first and last message id. */
export async function bulkSeed(plan: SeedPlan): Promise<{ firstId: number; lastId: number }> {
  const client = await mongo.MongoClient.connect(plan.mongoUrl);
  // the schema messaging's search uses: named after its database (services/messaging/src/search/open-search.ts)
  const search = plan.searchUrl ? await PostgresSearch.open(plan.searchUrl, plan.dbName) : undefined;
  try {
    const db = client.db(plan.dbName);
    const messages = db.collection("messages");
    const readStates = db.collection<{ _id: string }>("readstates");
    const topics = db.collection("topics");
    const runs = db.collection("channel_message_runs");
    const counters = db.collection<{ _id: string; seq: number }>("counters");

    const template = await messages.findOne({ messageId: plan.templateMessageId });
    if (!template) {
      throw new SchemaDrift(
        `message ${plan.templateMessageId} is not in ${plan.dbName}.messages: messaging's storage changed; update bench/seed.ts`,
      );
    }
    if (!sameFields(template, MESSAGE_FIELDS)) {
      throw new SchemaDrift(
        `messaging's message documents now have fields [${Object.keys(template).join(", ")}], bench/seed.ts writes ` +
          `[${MESSAGE_FIELDS.join(", ")}]: update bench/seed.ts to match services/messaging/src/messages/message.schema.ts`,
      );
    }
    const state = await readStates.findOne({});
    if (!state || !sameFields(state, READ_STATE_FIELDS)) {
      throw new SchemaDrift(
        `messaging's read states now have fields [${Object.keys(state ?? {}).join(", ")}], bench/seed.ts writes ` +
          `[${READ_STATE_FIELDS.join(", ")}]: update bench/seed.ts to match user-messages/read-state.schema.ts`,
      );
    }

    const run = await runs.findOne({ ids: plan.templateMessageId });
    if (!run || !sameFields(run, CHANNEL_RUN_FIELDS)) {
      throw new SchemaDrift(
        `messaging's channel runs now have fields [${Object.keys(run ?? {}).join(", ")}], bench/seed.ts writes ` +
          `[${CHANNEL_RUN_FIELDS.join(", ")}]: update bench/seed.ts to match messages/channel-run.schema.ts`,
      );
    }

    // Reserve the ids: one $inc by `count` moves the counter past everything written here.
    const after = await counters.findOneAndUpdate(
      { _id: "message" },
      { $inc: { seq: plan.count } },
      { returnDocument: "after" },
    );
    if (!after) throw new SchemaDrift(`no counters document {_id: "message"} in ${plan.dbName}: ids.ts changed?`);
    const lastId = after.seq;
    const firstId = lastId - plan.count + 1;

    if (template.receivedBySubscription !== true) {
      throw new SchemaDrift(
        `message ${plan.templateMessageId} does not have receivedBySubscription: update bench/seed.ts`,
      );
    }
    // the channel's subscribers now: the seeded ids come after the template's, within their open intervals
    const receivers = (
      await readStates
        .find<{ userId: number; intervals: number[] }>({ realmId: template.realmId, streamId: template.streamId })
        .toArray()
    )
      .filter((s) => s.intervals[s.intervals.length - 1] === OPEN)
      .map((s) => s.userId);
    const batch = BATCH;
    const now = Math.floor(Date.now() / 1000);
    const started = Date.now();
    let lastSaid = started;
    /** topic key → the newest seeded message in it */
    const newestInTopic = new Map<string, { name: string; maxId: number }>();
    for (let from = 1; from <= plan.count; from += batch) {
      const to = Math.min(plan.count, from + batch - 1);
      const msgs: MessageDoc[] = [];
      for (let n = from; n <= to; n++) {
        const messageId = firstId + n - 1;
        const content = plan.content(n);
        const renderedContent = plan.rendered(n);
        const topic = plan.topic(n);
        newestInTopic.set(topic.toLowerCase(), { name: topic, maxId: messageId });
        msgs.push({
          realmId: template.realmId as number,
          messageId,
          senderId: template.senderId as number,
          type: template.type as MessageDoc["type"],
          recipientId: template.recipientId as number,
          streamId: template.streamId as number,
          topic,
          topicKey: topic.toLowerCase(),
          receivers: [],
          receivedBySubscription: true,
          content,
          renderedContent,
          ...contentFeatures(renderedContent),
          // one message a minute up to now
          timestamp: now - (plan.count - n + 1) * 60,
          client: "API",
          reactions: [],
        });
      }
      await messages.insertMany(msgs, { ordered: false });
      // full runs, as the sends would have filled them (a send appends to a run of fewer than RUN_SIZE)
      await runs.insertMany(fullRuns(template.realmId as number, template.streamId as number, firstId - 1, msgs));
      await search?.index(msgs);
      if (Date.now() - lastSaid > 5000 || to === plan.count) {
        lastSaid = Date.now();
        const s = (Date.now() - started) / 1000;
        const left = to < plan.count ? `, ~${(((plan.count - to) / to) * s).toFixed(0)} s left` : "";
        plan.progress(`  bulk: ${to}/${plan.count} messages, ${s.toFixed(0)} s, ${(to / s).toFixed(0)} msg/s${left}`);
      }
    }
    // what marking read would leave: the watermark at the last message read (read-state.ts)
    const realmId = template.realmId as number;
    const streamId = template.streamId as number;
    const marks = receivers
      .filter((userId) => plan.readThrough(userId) > 0)
      .map((userId) => ({
        updateOne: {
          filter: { _id: readStateId(realmId, userId, streamId) },
          update: { $max: { watermark: firstId + plan.readThrough(userId) - 1 }, $inc: { version: 1 } },
        },
      }));
    for (let i = 0; i < marks.length; i += BATCH) await readStates.bulkWrite(marks.slice(i, i + BATCH));
    for (const [topicKey, { name, maxId }] of newestInTopic) {
      const where = { realmId: template.realmId, streamId: template.streamId, topicKey };
      await topics.updateOne(where, { $set: { name, maxId } }, { upsert: true });
    }
    return { firstId, lastId };
  } finally {
    await client.close();
    await search?.close();
  }
}

/** Messages stored in the whole system so far: the `counters` document messaging takes message ids from. */
export async function openMessageCount(mongoUrl: string, dbName: string) {
  const client = await mongo.MongoClient.connect(mongoUrl);
  const counters = client.db(dbName).collection<{ _id: string; seq: number }>("counters");
  return {
    read: async () => (await counters.findOne({ _id: "message" }))?.seq ?? 0,
    close: () => client.close(),
  };
}
