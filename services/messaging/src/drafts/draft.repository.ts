import type { Connection } from "mongoose";
import { TenantRepository, type IdAllocator, type messaging } from "@teamchat/shared";
import { draftSchema, type DraftDoc } from "./draft.schema";

/** A draft's content and addressing, as checked (drafts/draft-check.ts). */
export type DraftFields = Pick<DraftDoc, "type" | "to" | "topic" | "content" | "lastEditTime">;

/** Zulip's Draft.to_dict. */
export const toDraft = (d: DraftDoc): messaging.Draft => ({
  id: d.draftId,
  type: d.type,
  to: d.to,
  topic: d.topic,
  content: d.content,
  timestamp: Math.floor(d.lastEditTime),
});

const byEditTime = (a: DraftDoc, b: DraftDoc) => a.lastEditTime - b.lastEditTime || a.draftId - b.draftId;

export class DraftRepository extends TenantRepository<DraftDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<DraftDoc>("Draft", draftSchema));
  }

  /** The user's drafts, least recently edited first (a user's drafts are few: sorted here). */
  async ofUser(realmId: number, userId: number): Promise<DraftDoc[]> {
    return (await this.findOfUser(realmId, "userId", userId)).sort(byEditTime);
  }

  async exists(realmId: number, userId: number, draftId: number): Promise<boolean> {
    return (await this.findOne(realmId, { userId, draftId }, { projection: { _id: 1 } })) !== null;
  }

  async insert(realmId: number, userId: number, drafts: DraftFields[]): Promise<DraftDoc[]> {
    const docs: DraftDoc[] = [];
    for (const d of drafts) docs.push({ realmId, draftId: await this.ids.next("draft"), userId, ...d });
    await this.insertMany(docs);
    return docs;
  }

  /** The user's draft after the change; null when the user has no such draft. */
  replace(realmId: number, userId: number, draftId: number, fields: DraftFields): Promise<DraftDoc | null> {
    return this.findOneAndUpdate(realmId, { userId, draftId }, { $set: fields });
  }

  /** False when the user has no such draft. */
  async remove(realmId: number, userId: number, draftId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, draftId })) > 0;
  }

  /** Every draft of the user (their drafts synchronization was turned off). */
  async removeAllOf(realmId: number, userId: number): Promise<number> {
    return this.deleteMany(realmId, { userId });
  }
}
