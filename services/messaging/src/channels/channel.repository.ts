import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { channelSchema, type ChannelDoc } from "./channel.schema";

export type NewChannel = Omit<
  ChannelDoc,
  "realmId" | "streamId" | "recipientId" | "nameKey" | "isArchived" | "firstMessageId"
>;

export class ChannelRepository extends TenantRepository<ChannelDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ChannelDoc>("Channel", channelSchema));
  }

  byId(realmId: number, streamId: number): Promise<ChannelDoc | null> {
    return this.findOne(realmId, { streamId });
  }

  byName(realmId: number, name: string): Promise<ChannelDoc | null> {
    return this.findOne(realmId, { nameKey: name.toLowerCase() });
  }

  byIds(realmId: number, streamIds: number[]): Promise<ChannelDoc[]> {
    return this.find(realmId, { streamId: { $in: streamIds } });
  }

  all(realmId: number): Promise<ChannelDoc[]> {
    return this.find(realmId, {});
  }

  /** The organization's default channels (register's realm_default_streams). */
  async defaultIds(realmId: number): Promise<number[]> {
    return (await this.find(realmId, { isDefault: true })).map((c) => c.streamId);
  }

  /** Inserts with fresh ids; a duplicate name fails with the unique index's error. */
  async insert(realmId: number, channel: NewChannel): Promise<ChannelDoc> {
    const [streamId, recipientId] = await Promise.all([this.ids.next("stream"), this.ids.next("recipient")]);
    return this.insertOne({
      ...channel,
      realmId,
      streamId,
      recipientId,
      nameKey: channel.name.toLowerCase(),
      isArchived: false,
      firstMessageId: null,
    });
  }

  /** Records the channel's first message (sent once, when it is still unset). */
  async setFirstMessage(realmId: number, streamId: number, messageId: number): Promise<void> {
    await this.updateOne(realmId, { streamId, firstMessageId: null }, { $set: { firstMessageId: messageId } });
  }
}
