import {
  badRequest,
  realmConfigEvents,
  unprintablePosition,
  type EventPublisher,
  type ZulipError,
} from "@teamchat/shared";
import type { z } from "zod";

/** Zulip's check_channel_folder_name, less the uniqueness check (see nameInUse). */
export function checkChannelFolderName(name: string): void {
  if (!name.trim()) throw badRequest("Channel folder name can't be empty.");
  const position = unprintablePosition(name);
  if (position !== null) throw badRequest(`Invalid character in channel folder name, at position ${position}.`);
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
