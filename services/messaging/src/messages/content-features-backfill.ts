import type { Connection, Logger } from "@teamchat/shared";
import type { ChannelRepository } from "../channels/channel.repository";
import type { MessageRepository } from "./message.repository";

const MARKER = "message_content_features";

/**
 * Gives the messages stored before has:link, has:image and has:attachment were
 * kept their contentFeatures, once per deployment (a marker in
 * `message_backfills` records it). Every organization has channels, so the
 * channels name the organizations to go through. Messages sent meanwhile get
 * theirs when stored; running twice (two instances starting) writes the same.
 */
export async function backfillContentFeatures(deps: {
  db: Connection;
  channels: ChannelRepository;
  messages: MessageRepository;
  log: Logger;
}): Promise<void> {
  const markers = deps.db.collection<{ _id: string; at: Date }>("message_backfills");
  if (await markers.findOne({ _id: MARKER })) return;
  const realmIds = new Set((await deps.channels.inEveryRealm()).map((c) => c.realmId));
  let filled = 0;
  for (const realmId of realmIds) filled += await deps.messages.fillContentFeatures(realmId);
  await markers.updateOne({ _id: MARKER }, { $set: { at: new Date() } }, { upsert: true });
  deps.log.info(
    { backfill: MARKER, organizations: realmIds.size, messages: filled },
    "message content features backfilled",
  );
}
