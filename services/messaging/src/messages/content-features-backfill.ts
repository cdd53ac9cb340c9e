import type { Connection, IdAllocator, Logger } from "@teamchat/shared";
import type { MessageRepository } from "./message.repository";

const MARKER = "message_content_features";
/** Messages read at a time. */
const BATCH = 500;

/**
 * Gives the messages stored before has:link, has:image and has:attachment were
 * kept their contentFeatures, in one pass over the messages, once per
 * deployment (a marker in `message_backfills` records it). Messages sent
 * meanwhile get theirs when stored; running twice (two instances starting)
 * writes the same.
 */
export async function backfillContentFeatures(deps: {
  db: Connection;
  messages: MessageRepository;
  ids: IdAllocator;
  log: Logger;
}): Promise<void> {
  const markers = deps.db.collection<{ _id: string; at: Date }>("message_backfills");
  if (await markers.findOne({ _id: MARKER })) return;
  let filled = 0;
  for await (const batch of deps.messages.everyMessageBelow((await deps.ids.current("message")) + 1, BATCH)) {
    const missing = batch.filter((m) => m.hasLink === undefined);
    await deps.messages.storeContentFeatures(missing);
    filled += missing.length;
  }
  await markers.updateOne({ _id: MARKER }, { $set: { at: new Date() } }, { upsert: true });
  deps.log.info({ backfill: MARKER, messages: filled }, "message content features backfilled");
}
