import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventKeyedCache, provideState, realmConfig, realmConfigEvents, requireRealm } from "@teamchat/shared";
import { channelFolderView } from "./channel-folder-view";
import type { ChannelFolderRepository } from "./channel-folder.repository";
import type { ChannelFolderDoc } from "./channel-folder.schema";

/** Folders kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_FOLDERS = 20_000;

/**
 * register's channel_folders: archived ones too, as Zulip sends them to users
 * (clients hide those themselves); from memory, as every register reads them,
 * dropped on the channel_folder events every change publishes.
 */
export function channelFoldersState({
  folders,
  nc,
  log,
}: {
  folders: ChannelFolderRepository;
  nc: NatsConnection;
  log: Logger;
}) {
  const lists = EventKeyedCache.listsByRealm<ChannelFolderDoc, typeof realmConfigEvents.channelFolder.payload>(
    nc,
    log,
    realmConfigEvents.channelFolder,
    "channel-folders",
    MAX_CACHED_FOLDERS,
  );
  const provider = provideState(realmConfig.channelFoldersPart, async (_params, ctx) => {
    const realmId = requireRealm(ctx).id;
    const list = await lists.get(`${realmId}`, () => folders.inDisplayOrder(realmId, { includeArchived: true }));
    return { channel_folders: list.map(channelFolderView) };
  });
  return { provider, stop: () => lists.stop() };
}
