import type { Connection } from "mongoose";
import { TenantRepository, type LinkEmbed } from "@teamchat/shared";
import { LINK_PREVIEW_LIFETIME_SECONDS, linkPreviewSchema, type LinkPreviewDoc } from "./link-preview.schema";

/** The previews of web pages an organization's messages linked, fetched at most once a day per page. */
export class LinkPreviewRepository extends TenantRepository<LinkPreviewDoc> {
  constructor(conn: Connection) {
    super(conn.model<LinkPreviewDoc>("LinkPreview", linkPreviewSchema));
  }

  /** The previews of these URLs fetched within their lifetime, by URL. */
  async fresh(realmId: number, urls: string[], now = Date.now()): Promise<Map<string, LinkEmbed | null>> {
    const since = new Date(now - LINK_PREVIEW_LIFETIME_SECONDS * 1000);
    const docs = await this.find(realmId, { url: { $in: urls }, fetchedAt: { $gte: since } });
    return new Map(docs.map((d) => [d.url, d.embed]));
  }

  async store(realmId: number, url: string, embed: LinkEmbed | null, fetchedAt = new Date()): Promise<void> {
    await this.upsertOne(realmId, { url }, { $set: { embed, fetchedAt } });
  }
}
