import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { channelSchema, type ChannelDoc } from "./channel.schema";

export type NewChannel = Omit<
  ChannelDoc,
  "realmId" | "streamId" | "recipientId" | "nameKey" | "isArchived" | "firstMessageId"
>;

/** What PATCH /streams/{stream_id}, archiving and default channels change. */
export type ChannelChanges = Partial<
  Pick<
    ChannelDoc,
    | "name"
    | "description"
    | "renderedDescription"
    | "inviteOnly"
    | "isWebPublic"
    | "historyPublicToSubscribers"
    | "messageRetentionDays"
    | "topicsPolicy"
    | "folderId"
    | "isDefault"
    | "isArchived"
    | "groupSettings"
  >
>;

export class ChannelRepository extends TenantRepository<ChannelDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ChannelDoc>("Channel", channelSchema));
  }

  /** Every channel of the organization (ChannelDirectory keeps them in memory). */
  all(realmId: number): Promise<ChannelDoc[]> {
    return this.find(realmId, {});
  }

  /** Every channel of every organization: the one-time backfill of other services' copies (ChannelCopy). */
  inEveryRealm(): Promise<ChannelDoc[]> {
    return this.findInEveryRealm({});
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

  /** Sets the channel's first message id after its oldest messages were deleted or moved. */
  async setOldestMessage(realmId: number, streamId: number, messageId: number | null): Promise<void> {
    await this.updateOne(realmId, { streamId }, { $set: { firstMessageId: messageId } });
  }

  /** Records the channel's first message, while it is unset; true when it was. */
  async setFirstMessage(realmId: number, streamId: number, messageId: number): Promise<boolean> {
    return (
      (await this.updateOne(realmId, { streamId, firstMessageId: null }, { $set: { firstMessageId: messageId } })) > 0
    );
  }

  /**
   * Changes the channel's properties: a new name with its lowercase key (a
   * taken name fails with the unique index's error), each group setting given
   * on its own (concurrent changes of different settings both stay).
   */
  async update(realmId: number, streamId: number, changes: ChannelChanges): Promise<void> {
    const { groupSettings = {}, ...fields } = changes;
    const set: Record<string, unknown> = { ...fields };
    if (fields.name !== undefined) set.nameKey = fields.name.toLowerCase();
    for (const [name, value] of Object.entries(groupSettings)) set[`groupSettings.${name}`] = value;
    await this.updateOne(realmId, { streamId }, { $set: set });
  }
}
