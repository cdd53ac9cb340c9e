import type { Connection, Logger } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import { isMention } from "./flags";
import type { UserMessageRepository } from "./user-message.repository";
import type { UnreadBucketRepository, UnreadEntry } from "./unread-bucket.repository";
import { placeOf } from "./unread-bucket.schema";

/** Messages read per query while recomputing. */
const CHUNK = 1000;

interface RepairDeps {
  messages: MessageRepository;
  userMessages: UserMessageRepository;
  unreadBuckets: UnreadBucketRepository;
}

/** A user's unread summary as their rows say it should be: every unread row, placed by its message. */
async function recomputedUnread(
  deps: Omit<RepairDeps, "unreadBuckets">,
  realmId: number,
  userId: number,
): Promise<UnreadEntry[]> {
  const rows = await deps.userMessages.unreadOf(realmId, userId);
  const flagsById = new Map(rows.map((r) => [r.messageId, r.flags]));
  const entries: UnreadEntry[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const ids = rows.slice(i, i + CHUNK).map((r) => r.messageId);
    for (const m of await deps.messages.summaries(realmId, ids)) {
      const flags = flagsById.get(m.messageId) ?? [];
      entries.push({
        id: m.messageId,
        place: placeOf(m),
        mentioned: isMention(flags),
        direct: flags.includes("mentioned"),
      });
    }
  }
  return entries;
}

/** The repair path: the user's summary rebuilt from their rows (after a failure left it behind them). */
async function rebuildUnreadSummary(deps: RepairDeps, realmId: number, userId: number): Promise<void> {
  await deps.unreadBuckets.rebuild(realmId, userId, await recomputedUnread(deps, realmId, userId));
}

/**
 * Builds the summary of every user with unread rows, once per deployment:
 * rows written before summaries existed. Reads every unread row once.
 */
export async function buildUnreadSummariesOnce(deps: RepairDeps & { db: Connection; log: Logger }): Promise<void> {
  const markers = deps.db.collection<{ _id: string; at: Date }>("deployment_steps");
  const step = "unread-summaries";
  if (await markers.findOne({ _id: step })) return;
  const users = await deps.userMessages.usersWithUnreadInEveryRealm();
  for (const [n, { realmId, userId }] of users.entries()) {
    await rebuildUnreadSummary(deps, realmId, userId);
    if ((n + 1) % 100 === 0) deps.log.info({ step, done: n + 1, of: users.length }, "building unread summaries");
  }
  await markers.updateOne({ _id: step }, { $set: { at: new Date() } }, { upsert: true });
  deps.log.info({ step, users: users.length }, "unread summaries built from the rows");
}
