import { Schema } from "mongoose";
import type { LinkEmbed } from "@teamchat/shared";

/**
 * A web page's preview as fetched (Zulip's preview_url_cache_key cache): its
 * card data, or null when the page has nothing to show (not HTML,
 * unreachable), so a page linked again is not fetched again for a while.
 */
export interface LinkPreviewDoc {
  realmId: number;
  url: string;
  embed: LinkEmbed | null;
  fetchedAt: Date;
}

/** How long a fetched preview is used before the page is fetched again. */
export const LINK_PREVIEW_LIFETIME_SECONDS = 24 * 60 * 60;

export const linkPreviewSchema = new Schema<LinkPreviewDoc>(
  {
    realmId: { type: Number, required: true },
    url: { type: String, required: true },
    embed: { type: Schema.Types.Mixed, default: null },
    fetchedAt: { type: Date, required: true },
  },
  { collection: "linkpreviews", versionKey: false },
);
// LinkPreviewRepository.fresh: the previews of a message's URLs
linkPreviewSchema.index({ realmId: 1, url: 1 }, { unique: true });
// MongoDB drops stale previews (an engine without TTL indexes keeps them: fresh() ignores them)
linkPreviewSchema.index({ fetchedAt: 1 }, { expireAfterSeconds: LINK_PREVIEW_LIFETIME_SECONDS });
