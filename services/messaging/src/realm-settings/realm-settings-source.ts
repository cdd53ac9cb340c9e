import { RealmSettingsCache, realmConfig, type CallContext } from "@teamchat/shared";

/** What messaging asks realm-config: the organization's settings (kept: RealmSettingsCache) and channel folders. */
export class RealmSettingsSource extends RealmSettingsCache {
  async folderExists(ctx: CallContext, folderId: number): Promise<boolean> {
    const { channel_folders } = await this.bus.request(realmConfig.listChannelFolders, { include_archived: true }, ctx);
    return channel_folders.some((f) => f.id === folderId);
  }
}
