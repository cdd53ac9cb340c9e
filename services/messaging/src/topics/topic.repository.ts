import type { Connection } from "mongoose";
import { TenantRepository, Coalescer, isDuplicateKey } from "@teamchat/shared";
import { topicSchema, type TopicDoc } from "./topic.schema";

export class TopicRepository extends TenantRepository<TopicDoc> {
  /** Concurrent sends to one topic are noted by one write for the newest of them. */
  private readonly notes = new Coalescer<{ realmId: number; streamId: number; name: string; messageId: number }, void>(
    async (_key, notes) => {
      const newest = notes.reduce((a, b) => (b.messageId > a.messageId ? b : a));
      await this.noteNewest(newest.realmId, newest.streamId, newest.name, newest.messageId);
      return notes.map(() => undefined);
    },
  );

  constructor(conn: Connection) {
    super(conn.model<TopicDoc>("Topic", topicSchema));
  }

  /** Records a new message in its topic: the topic is created on first use, its newest id and spelling kept. */
  noteMessage(realmId: number, streamId: number, name: string, messageId: number): Promise<void> {
    return this.notes.run(`${realmId}:${streamId}:${name.toLowerCase()}`, { realmId, streamId, name, messageId });
  }

  private async noteNewest(realmId: number, streamId: number, name: string, messageId: number): Promise<void> {
    const topicKey = name.toLowerCase();
    const newer = { realmId, streamId, topicKey, maxId: { $lt: messageId } };
    if (await this.updateOne(realmId, newer, { $set: { name, maxId: messageId } })) return;
    try {
      await this.insertOne({ realmId, streamId, topicKey, name, maxId: messageId });
    } catch (err) {
      // The topic exists (made by a concurrent send, or holding a newer message): update it if this one is newer.
      if (!isDuplicateKey(err)) throw err;
      await this.updateOne(realmId, newer, { $set: { name, maxId: messageId } });
    }
  }

  /** After messages left a topic (deleted or moved): its newest remaining message, or the topic is gone. */
  async refresh(
    realmId: number,
    streamId: number,
    topicKey: string,
    newest: { topic: string; messageId: number } | null,
  ): Promise<void> {
    if (!newest) await this.deleteMany(realmId, { streamId, topicKey });
    else
      await this.upsertOne(realmId, { streamId, topicKey }, { $set: { name: newest.topic, maxId: newest.messageId } });
  }

  /** A channel's topics with their newest message id, most recent first. */
  async ofChannel(realmId: number, streamId: number): Promise<Array<{ name: string; max_id: number }>> {
    const rows = await this.find(realmId, { streamId });
    return rows.sort((a, b) => b.maxId - a.maxId).map((t) => ({ name: t.name, max_id: t.maxId }));
  }
}
