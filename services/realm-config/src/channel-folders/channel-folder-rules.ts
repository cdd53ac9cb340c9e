import { badRequest, realmConfigEvents, type EventPublisher, type ZulipError } from "@teamchat/shared";
import type { z } from "zod";

// Zulip's is_character_printable: control characters, surrogates and the 66 Unicode non-characters are refused.
const NOT_PRINTABLE =
  /[\p{Cc}\p{Cs}\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

/** Zulip's check_channel_folder_name, less the uniqueness check (see nameInUse). */
export function checkChannelFolderName(name: string): void {
  if (!name.trim()) throw badRequest("Channel folder name can't be empty.");
  // Positions are 1-based code points, as Python counts them.
  const position = [...name].findIndex((ch) => NOT_PRINTABLE.test(ch));
  if (position >= 0) throw badRequest(`Invalid character in channel folder name, at position ${position + 1}.`);
}

/** Another active folder has the name, case-insensitively. */
export const nameInUse = (): ZulipError => badRequest("Channel folder name already in use");

type ChannelFolderEvent = z.input<typeof realmConfigEvents.channelFolder.payload>["event"];
/** What an op "update" event says changed. */
export type ChannelFolderUpdateData = Extract<ChannelFolderEvent, { op: "update" }>["data"];

/** channel_folder events go to every user of the organization (Zulip's active_user_ids). */
export function publishChannelFolderEvent(
  events: EventPublisher<"realm-config">,
  realmId: number,
  event: ChannelFolderEvent,
  requestId: string,
): void {
  events.publish(realmConfigEvents.channelFolder, { realmId, userIds: "all", event }, requestId);
}
