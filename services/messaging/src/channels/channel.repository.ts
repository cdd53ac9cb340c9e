import type { Connection } from "mongoose";
import { IdAllocator, RealmRepository } from "@teamchat/shared";
import { channelSchema, type ChannelDoc } from "./channel.schema";

export type NewChannel = Omit<ChannelDoc, "streamId" | "recipientId" | "nameKey" | "isArchived" | "firstMessageId">;

export class ChannelRepository extends RealmRepository<ChannelDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ChannelDoc>("Channel", channelSchema));
  }

  byId(realmId: number, streamId: number): Promise<ChannelDoc | null> {
    return this.findOne({ realmId, streamId });
  }

  byName(realmId: number, name: string): Promise<ChannelDoc | null> {
    return this.findOne({ realmId, nameKey: name.toLowerCase() });
  }

  byIds(realmId: number, streamIds: number[]): Promise<ChannelDoc[]> {
    return this.find({ realmId, streamId: { $in: streamIds } });
  }

  all(realmId: number): Promise<ChannelDoc[]> {
    return this.find({ realmId });
  }

  /** Inserts with fresh ids; a duplicate name fails with the unique index's error. */
  async insert(channel: NewChannel): Promise<ChannelDoc> {
    const [streamId, recipientId] = await Promise.all([this.ids.next("stream"), this.ids.next("recipient")]);
    const doc: ChannelDoc = {
      ...channel,
      streamId,
      recipientId,
      nameKey: channel.name.toLowerCase(),
      isArchived: false,
      firstMessageId: null,
    };
    await this.model.create(doc);
    return doc;
  }

  /** Records the channel's first message (sent once, when it is still unset). */
  async setFirstMessage(realmId: number, streamId: number, messageId: number): Promise<void> {
    await this.model.updateOne({ realmId, streamId, firstMessageId: null }, { $set: { firstMessageId: messageId } });
  }
}
