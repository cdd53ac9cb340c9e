import type { Connection, Logger } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { SubscriptionRepository } from "../subscriptions/subscription.repository";
import { STORED_FLAGS } from "./flags";
import type { ReadStateRepository } from "./read-state.repository";
import type { UserMessageDoc } from "./user-message.schema";
import type { UserMessageRepository } from "./user-message.repository";

/** The progress document's key in `migrations`. */
const MIGRATION = "readstates";
/** Rows read and converted at a time. */
const BATCH = 1000;
/** A progress line every this many batches. */
const LOG_EVERY = 50;
/**
 * Messages whose channel is remembered between batches: rows come in key
 * order (`realm:user:message`), so the next user's rows name mostly the same
 * messages; forgotten all at once beyond this.
 */
const MAX_KNOWN_MESSAGES = 200_000;

/** How far the migration got: `after` is the last row key converted, `watermark` the newest message id when it began. */
interface Progress {
  _id: string;
  watermark: number;
  after: string;
  done: boolean;
}

export interface ReadStateMigrationDeps {
  db: Connection;
  messages: Pick<MessageRepository, "latestId" | "channelsOf">;
  subscriptions: Pick<SubscriptionRepository, "activeInEveryRealm">;
  userMessages: Pick<UserMessageRepository, "everyRowAfter" | "removeRows" | "markChannelRows">;
  readStates: Pick<ReadStateRepository, "openWhereMissing" | "addExceptions">;
  log: Logger;
}

/** What a pass did, for its log lines. */
interface Counts {
  rows: number;
  /** unread channel rows, now exceptions of read states */
  unread: number;
  /** channel rows with none of STORED_FLAGS, dropped */
  dropped: number;
  /** channel rows with another flag (starred, mentioned...), kept with the "read" sentinel */
  kept: number;
  /** direct message rows, rows of messages gone, rows of messages newer than the watermark: left as they are */
  untouched: number;
}

/**
 * Converts a database made when every channel message had a row per receiver
 * (Zulip's UserMessage table, "read" among each row's flags) to read states
 * (read-state.ts): once per deployment, at start-up, before serving.
 *
 * W, the newest message id when it begins, is kept in the progress document
 * so that a restart resumes with the same one. Every current subscription
 * gets a state with everything up to W read and a subscription open after W,
 * so what is sent from now on arrives unread. Then the rows are walked in key
 * order from where the last pass stopped: a channel message's unread row
 * becomes an exception (unread below the watermark) of the user's state in
 * that channel (a state without a subscription for a user who left it); a
 * channel row with nothing but "read" goes; a channel row with another flag
 * stays, with "read" as the sentinel every channel row holds. Direct message
 * rows stay as they are. Every step can run again with the same result, so a
 * batch converted before a crash and not yet recorded is converted again.
 * Once done, a start costs one read. `limits` is for tests: a batch size and
 * a number of batches after which it stops, as an interrupted pass would.
 * Returns whether it is done.
 */
export async function migrateToReadStates(
  deps: ReadStateMigrationDeps,
  limits: { batch?: number; maxBatches?: number } = {},
): Promise<boolean> {
  const progressDocs = deps.db.collection<Progress>("migrations");
  const found = await progressDocs.findOne({ _id: MIGRATION });
  if (found?.done) return true;
  const started = Date.now();
  const progress =
    found ??
    (await progressDocs.findOneAndUpdate(
      { _id: MIGRATION },
      { $setOnInsert: { watermark: await deps.messages.latestId(), after: "", done: false } },
      { upsert: true, returnDocument: "after" },
    ))!;
  const { watermark } = progress;
  deps.log.info({ migration: MIGRATION, watermark, after: progress.after }, "read states migration: started");

  for (const [realmId, subs] of byRealm(await deps.subscriptions.activeInEveryRealm())) {
    await deps.readStates.openWhereMissing(realmId, subs, watermark);
  }

  const counts: Counts = { rows: 0, unread: 0, dropped: 0, kept: 0, untouched: 0 };
  const known = new Map<string, number | null>();
  let { after } = progress;
  let batches = 0;
  for await (const rows of deps.userMessages.everyRowAfter(after, limits.batch ?? BATCH)) {
    await convertBatch(deps, rows, watermark, known, counts);
    after = rows[rows.length - 1]!._id;
    // another instance that finished first has served since: stop here, changing nothing more
    const { matchedCount } = await progressDocs.updateOne({ _id: MIGRATION, done: false }, { $set: { after } });
    if (matchedCount === 0) return true;
    batches++;
    if (batches % LOG_EVERY === 0) deps.log.info({ migration: MIGRATION, after, ...counts }, "read states migration");
    if (limits.maxBatches !== undefined && batches >= limits.maxBatches) return false;
  }
  await progressDocs.updateOne({ _id: MIGRATION }, { $set: { done: true, after } });
  deps.log.info(
    { migration: MIGRATION, watermark, ...counts, ms: Date.now() - started },
    "read states migration: done",
  );
  return true;
}

/** Whether a row holds a flag besides "read": a channel message's row is kept for it. */
const hasStoredFlag = (flags: string[]): boolean => flags.some((f) => (STORED_FLAGS as readonly string[]).includes(f));

function byRealm<T extends { realmId: number }>(items: T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const group = groups.get(item.realmId);
    if (group) group.push(item);
    else groups.set(item.realmId, [item]);
  }
  return groups;
}

/** One batch of rows, organization by organization. */
async function convertBatch(
  deps: ReadStateMigrationDeps,
  rows: UserMessageDoc[],
  watermark: number,
  known: Map<string, number | null>,
  counts: Counts,
): Promise<void> {
  counts.rows += rows.length;
  for (const [realmId, ofRealm] of byRealm(rows)) {
    // rows of messages sent after the migration began were made as read states want them
    const older = ofRealm.filter((r) => r.messageId <= watermark);
    counts.untouched += ofRealm.length - older.length;
    const key = (messageId: number) => `${realmId}:${messageId}`;
    const unknown = [...new Set(older.map((r) => r.messageId).filter((id) => !known.has(key(id))))];
    if (known.size + unknown.length > MAX_KNOWN_MESSAGES) known.clear();
    for (const [id, streamId] of await deps.messages.channelsOf(realmId, unknown)) known.set(key(id), streamId);

    const channelRows: Array<UserMessageDoc & { streamId: number }> = [];
    for (const r of older) {
      const streamId = known.get(key(r.messageId));
      // a direct message keeps its rows; a row of a message gone is left alone
      if (streamId === undefined || streamId === null) counts.untouched++;
      else channelRows.push({ ...r, streamId });
    }
    const unread = new Map<string, { userId: number; streamId: number; ids: number[] }>();
    for (const r of channelRows) {
      if (r.flags.includes("read")) continue;
      const k = `${r.userId}:${r.streamId}`;
      const entry = unread.get(k) ?? unread.set(k, { userId: r.userId, streamId: r.streamId, ids: [] }).get(k)!;
      entry.ids.push(r.messageId);
      counts.unread++;
    }
    // the exceptions first: a crash before the rows change leaves them to convert again
    if (unread.size) await deps.readStates.addExceptions(realmId, [...unread.values()], watermark);
    const flagged = channelRows.filter((r) => hasStoredFlag(r.flags));
    const plain = channelRows.filter((r) => !hasStoredFlag(r.flags));
    const unmarked = flagged.filter((r) => !r.flags.includes("read") || r.unread || !r.marked);
    await deps.userMessages.removeRows(realmId, plain);
    await deps.userMessages.markChannelRows(realmId, unmarked);
    counts.dropped += plain.length;
    counts.kept += flagged.length;
  }
}
