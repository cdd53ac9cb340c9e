import type { Connection } from "mongoose";
import { TenantRepository, type IdAllocator, type messaging } from "@teamchat/shared";
import { savedSnippetSchema, type SavedSnippetDoc } from "./saved-snippet.schema";

/** Zulip's SavedSnippet.to_api_dict. */
export const toSavedSnippet = (s: SavedSnippetDoc): messaging.SavedSnippet => ({
  id: s.savedSnippetId,
  title: s.title,
  content: s.content,
  date_created: s.dateCreated,
});

export class SavedSnippetRepository extends TenantRepository<SavedSnippetDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<SavedSnippetDoc>("SavedSnippet", savedSnippetSchema));
  }

  /** The user's snippets, oldest first (Zulip's do_get_saved_snippets, by id). */
  ofUser(realmId: number, userId: number): Promise<SavedSnippetDoc[]> {
    return this.findOfUser(realmId, "userId", userId, {}, { savedSnippetId: 1 });
  }

  async insert(realmId: number, userId: number, title: string, content: string): Promise<SavedSnippetDoc> {
    return this.insertOne({
      realmId,
      savedSnippetId: await this.ids.next("saved_snippet"),
      userId,
      title,
      content,
      dateCreated: Math.floor(Date.now() / 1000),
    });
  }

  /** The user's snippet after the change; null when the user has no such snippet. */
  update(
    realmId: number,
    userId: number,
    savedSnippetId: number,
    change: Partial<Pick<SavedSnippetDoc, "title" | "content">>,
  ): Promise<SavedSnippetDoc | null> {
    return this.findOneAndUpdate(realmId, { userId, savedSnippetId }, { $set: change });
  }

  /** False when the user has no such snippet. */
  async remove(realmId: number, userId: number, savedSnippetId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, savedSnippetId })) > 0;
  }
}
