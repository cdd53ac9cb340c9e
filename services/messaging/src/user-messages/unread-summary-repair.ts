import type { Connection, Logger } from "@teamchat/shared";
import type { UserMessageRepository } from "./user-message.repository";
import type { UnreadSummary } from "./unread-summary";

/**
 * Builds the unread summary of every user with unread rows from their rows,
 * once per deployment: data older than summaries, or after the marker in
 * `deployment_steps` was removed to repair them. Reads every row once.
 */
export async function buildUnreadSummariesOnce(deps: {
  db: Connection;
  userMessages: UserMessageRepository;
  summary: UnreadSummary;
  log: Logger;
}): Promise<void> {
  const markers = deps.db.collection<{ _id: string; at: Date }>("deployment_steps");
  const step = "unread-summaries";
  if (await markers.findOne({ _id: step })) return;
  const users = await deps.userMessages.usersWithUnreadInEveryRealm();
  for (const [n, { realmId, userId }] of users.entries()) {
    await deps.summary.rebuild(realmId, userId);
    if ((n + 1) % 100 === 0) deps.log.info({ step, done: n + 1, of: users.length }, "building unread summaries");
  }
  await markers.updateOne({ _id: step }, { $set: { at: new Date() } }, { upsert: true });
  deps.log.info({ step, users: users.length }, "unread summaries built from the rows");
}
