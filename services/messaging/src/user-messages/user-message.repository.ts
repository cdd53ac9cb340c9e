import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { CHANNEL_WILDCARD_FLAGS, MENTION_FLAGS, inFlagOrder } from "./flags";
import { userMessageId, userMessageRow, userMessageSchema, type UserMessageDoc } from "./user-message.schema";

/** The keys of one user's rows of these messages: every look-up of rows is by primary key (TenantRepository.findByKeys). */
const keysOf = (realmId: number, userId: number, messageIds: number[]) =>
  messageIds.map((id) => userMessageId(realmId, userId, id));

/** The keys of these users' rows of one message. */
const keysOfUsers = (realmId: number, messageId: number, userIds: number[]) =>
  userIds.map((u) => userMessageId(realmId, u, messageId));

const holdsRead = { $in: ["read", "$flags"] };
/**
 * The update pipeline's last stage: `unread` and `marked` from the row's flags
 * after the change, in the same write (a row is marked while unread or holding
 * a flag besides "read", which read rows always hold).
 */
const STATE_FROM_FLAGS = {
  $set: {
    unread: { $not: [holdsRead] },
    marked: { $or: [{ $not: [holdsRead] }, { $gt: [{ $size: "$flags" }, 1] }] },
  },
};

export class UserMessageRepository extends TenantRepository<UserMessageDoc> {
  constructor(private readonly conn: Connection) {
    super(conn.model<UserMessageDoc>("UserMessage", userMessageSchema));
  }

  /**
   * Every row of every organization with a key after `after`, in key order,
   * `batch` at a time: one pass over the collection for maintenance (the
   * read-state migration), resumed from the last key it handed out. One query
   * for the whole pass: SecantusDB scans the collection for any range of
   * `_id` (docs/adr/0010-query-shapes.md), so a query per batch would scan it
   * once per batch.
   */
  async *everyRowAfter(after: string, batch: number): AsyncGenerator<UserMessageDoc[]> {
    let rows: UserMessageDoc[] = [];
    for await (const row of this.conn
      .collection<UserMessageDoc>("usermessages")
      .find({ _id: { $gt: after } }, { sort: { _id: 1 }, batchSize: batch })) {
      rows.push(row);
      if (rows.length === batch) {
        yield rows;
        rows = [];
      }
    }
    if (rows.length) yield rows;
  }

  /** Drops these rows (by user and message). */
  async removeRows(realmId: number, rows: Array<Pick<UserMessageDoc, "userId" | "messageId">>): Promise<void> {
    await this.deleteByKeys(
      realmId,
      rows.map((r) => userMessageId(realmId, r.userId, r.messageId)),
    );
  }

  /**
   * Makes these rows of channel messages hold "read" as the sentinel that
   * every channel row holds (the message's read state is the user's
   * ReadStateDoc's, not the row's), keeping their other flags.
   */
  async markChannelRows(realmId: number, rows: Array<Pick<UserMessageDoc, "userId" | "messageId">>): Promise<void> {
    const others = { $filter: { input: "$flags", cond: { $ne: ["$$this", "read"] } } };
    await this.updateByKeys(
      realmId,
      rows.map((r) => userMessageId(realmId, r.userId, r.messageId)),
      [{ $set: { flags: { $concatArrays: [["read"], others] } } }, STATE_FROM_FLAGS],
    );
  }

  /** One row per recipient of a new message, with their flags. */
  async deliver(
    realmId: number,
    messageId: number,
    recipients: Array<{ userId: number; flags: string[] }>,
  ): Promise<void> {
    // rows already there: a send resumed after failing halfway (deliverMessage) keeps them
    await this.insertKeepingExisting(
      recipients.map(({ userId, flags }) => userMessageRow(realmId, userId, messageId, flags)),
    );
  }

  /** The user's unread or flagged rows: message id, flags and whether unread. */
  markedOf(realmId: number, userId: number): Promise<Array<Pick<UserMessageDoc, "messageId" | "flags" | "unread">>> {
    return this.findOfUser(realmId, "userId", userId, { marked: true });
  }

  /** The user's rows of these messages (none for a message they never received), by message id. */
  async flagsOf(realmId: number, userId: number, messageIds: number[]): Promise<Map<number, string[]>> {
    const rows = await this.findByKeys(realmId, keysOf(realmId, userId, messageIds), { messageId: 1, flags: 1 });
    return new Map(rows.map((r) => [r.messageId, r.flags]));
  }

  /** These users' flags on one message, for those who have a row of it. */
  async flagsByUser(realmId: number, messageId: number, userIds: number[]): Promise<Map<number, string[]>> {
    const rows = await this.findByKeys(realmId, keysOfUsers(realmId, messageId, userIds), { userId: 1, flags: 1 });
    return new Map(rows.map((r) => [r.userId, r.flags]));
  }

  /** Up to `limit` of the user's unread message ids (any order). */
  async unreadIds(realmId: number, userId: number, limit: number): Promise<number[]> {
    const rows = await this.find(
      realmId,
      { userId, marked: true, unread: true },
      { projection: { messageId: 1 }, limit },
    );
    return rows.map((r) => r.messageId);
  }

  /** Sets or clears a flag on the user's rows of these messages, `unread` and `marked` following in the same write. */
  async setFlag(realmId: number, userId: number, messageIds: number[], flag: string, on: boolean): Promise<void> {
    const literal = { $literal: flag };
    const flags = on
      ? { $cond: [{ $in: [literal, "$flags"] }, "$flags", { $concatArrays: ["$flags", [literal]] }] }
      : { $filter: { input: "$flags", cond: { $ne: ["$$this", literal] } } };
    await this.updateByKeys(realmId, keysOf(realmId, userId, messageIds), [{ $set: { flags } }, STATE_FROM_FLAGS]);
  }

  /**
   * Marks read rows known to be unread with no other flag: one write, the
   * common case of a client reading what arrived. Rows that gained a flag
   * meanwhile are left alone; returns how many were marked.
   */
  markPlainRead(realmId: number, userId: number, messageIds: number[]): Promise<number> {
    return this.updateByKeys(realmId, keysOf(realmId, userId, messageIds), [
      { $set: { flags: { $cond: [{ $eq: [{ $size: "$flags" }, 0] }, ["read"], "$flags"] } } },
      STATE_FROM_FLAGS,
    ]);
  }

  /**
   * Rows for messages the user never received but may see (a channel's shared
   * history), with these flags: Zulip's "historical" rows, made when such a
   * message is starred or marked unread. A row made meanwhile by a concurrent
   * request is kept.
   */
  addHistorical(realmId: number, userId: number, rows: Array<{ messageId: number; flags: string[] }>): Promise<void> {
    return this.insertKeepingExisting(rows.map((r) => userMessageRow(realmId, userId, r.messageId, r.flags)));
  }

  /** Drops these users' rows of these messages (deleted, or moved where the users lose them). */
  async remove(realmId: number, userIds: number[], messageIds: number[]): Promise<void> {
    await this.deleteByKeys(
      realmId,
      userIds.flatMap((u) => keysOf(realmId, u, messageIds)),
    );
  }

  /**
   * Adds an @all mention's flags (CHANNEL_WILDCARD_FLAGS) to these users' rows
   * of a channel message, once the message no longer holds it for its
   * receivers (a move to another channel stores them): a row made for those
   * who have none ("read" in it, as the read state is not the row's), the
   * flags added to the others' in one update.
   */
  async storeChannelWildcard(realmId: number, messageId: number, userIds: number[]): Promise<void> {
    const rows = await this.flagsByUser(realmId, messageId, userIds);
    await this.insertKeepingExisting(
      userIds
        .filter((u) => !rows.has(u))
        .map((u) => userMessageRow(realmId, u, messageId, ["read", ...CHANNEL_WILDCARD_FLAGS])),
    );
    const wildcard: string[] = [...CHANNEL_WILDCARD_FLAGS];
    const others = { $filter: { input: "$flags", cond: { $not: [{ $in: ["$$this", wildcard] }] } } };
    await this.updateByKeys(realmId, keysOfUsers(realmId, messageId, [...rows.keys()]), [
      { $set: { flags: { $concatArrays: [others, wildcard] } } },
      STATE_FROM_FLAGS,
    ]);
  }

  /**
   * Sets each given user's mention flags on a message (an edit re-renders
   * mentions), keeping their other flags. A channel message's receivers have
   * a row only while they have a stored flag: one newly mentioned gets one
   * ("read" in it, as the read state is not the row's); for a direct message,
   * users without a row are skipped.
   */
  async setMentionFlags(
    realmId: number,
    messageId: number,
    mentions: Map<number, string[]>,
    channel: boolean,
  ): Promise<void> {
    let before = await this.flagsByUser(realmId, messageId, [...mentions.keys()]);
    const rowless = [...mentions].filter(([userId, flags]) => flags.length > 0 && !before.has(userId));
    if (channel && rowless.length) {
      await this.insertKeepingExisting(rowless.map(([userId]) => userMessageRow(realmId, userId, messageId, ["read"])));
      before = await this.flagsByUser(realmId, messageId, [...mentions.keys()]);
    }
    // one at a time: an edit runs in a transaction (update-message.ts), whose operations cannot run in parallel
    for (const [userId, flags] of before) {
      const after = inFlagOrder([...flags.filter((f) => !MENTION_FLAGS.includes(f)), ...(mentions.get(userId) ?? [])]);
      if (after.join() === flags.join()) continue;
      const { _id, unread, marked } = userMessageRow(realmId, userId, messageId, after);
      await this.updateByKeys(realmId, [_id], { $set: { flags: after, unread, marked } });
    }
  }
}
