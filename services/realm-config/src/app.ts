import {
  ChannelCopy,
  DURABLE_CONSUMERS,
  FileStore,
  IdAllocator,
  realmConfig,
  realmConfigEvents,
  registerStateHandler,
  subscribeEvent,
  type RunningService,
  type ServiceDeps,
} from "@teamchat/shared";
import { ChannelFolderRepository } from "./channel-folders/channel-folder.repository";
import { channelFoldersState } from "./channel-folders/channel-folders.state";
import { createChannelFolderHandler } from "./handlers/create-channel-folder";
import { createLinkifierHandler } from "./handlers/create-linkifier";
import { createPlaygroundHandler } from "./handlers/create-playground";
import { createProfileFieldHandler } from "./handlers/create-profile-field";
import { createRealmHandler } from "./handlers/create-realm";
import { deleteLinkifierHandler } from "./handlers/delete-linkifier";
import { deletePlaygroundHandler } from "./handlers/delete-playground";
import { deleteProfileFieldHandler } from "./handlers/delete-profile-field";
import { addRealmEmojiHandler } from "./handlers/add-realm-emoji";
import { listRealmEmojiHandler } from "./handlers/list-realm-emoji";
import { openEmojiImageHandler } from "./handlers/open-emoji-image";
import { removeRealmEmojiHandler } from "./handlers/remove-realm-emoji";
import { RealmEmojiList } from "./emoji/realm-emoji-list";
import { RealmEmojiRepository } from "./emoji/realm-emoji.repository";
import { getRealmSettingsHandler } from "./handlers/get-realm-settings";
import { getServerSettingsHandler } from "./handlers/get-server-settings";
import { listChannelFoldersHandler } from "./handlers/list-channel-folders";
import { listLegacyFiltersHandler, listLinkifiersHandler } from "./handlers/list-linkifiers";
import { listProfileFieldsHandler } from "./handlers/list-profile-fields";
import { reorderChannelFoldersHandler } from "./handlers/reorder-channel-folders";
import { reorderLinkifiersHandler } from "./handlers/reorder-linkifiers";
import { resolveRealmHandler } from "./handlers/resolve-realm";
import { updateChannelFolderHandler } from "./handlers/update-channel-folder";
import { updateLinkifierHandler } from "./handlers/update-linkifier";
import { reorderProfileFieldsHandler } from "./handlers/reorder-profile-fields";
import { updateProfileFieldHandler } from "./handlers/update-profile-field";
import { updateRealmHandler } from "./handlers/update-realm";
import { LinkifierRepository } from "./linkifiers/linkifier.repository";
import { linkifiersStates } from "./linkifiers/linkifiers.state";
import { PlaygroundRepository } from "./playgrounds/playground.repository";
import { playgroundsState } from "./playgrounds/playgrounds";
import { ProfileFieldList } from "./profile-fields/profile-field-list";
import { ProfileFieldRepository } from "./profile-fields/profile-field.repository";
import { profileFieldsState } from "./profile-fields/profile-fields.state";
import { RealmHosts } from "./realms/hosts";
import { RealmRecordRepository } from "./realms/realm.repository";
import { realmBillingState, realmState } from "./realms/realm.state";
import { unconfiguredStates } from "./realms/unconfigured.state";
import { versionState } from "./version.state";
import { UserGroupCopy } from "./user-groups/user-group-copy";

export async function buildRealmConfig(deps: ServiceDeps<"realm-config">): Promise<RunningService> {
  const ids = new IdAllocator(deps.db);
  const realms = new RealmRecordRepository(deps.db, ids, deps.nc);
  const fields = new ProfileFieldRepository(deps.db, ids);
  const folders = new ChannelFolderRepository(deps.db, ids);
  const linkifiers = new LinkifierRepository(deps.db, ids);
  const playgrounds = new PlaygroundRepository(deps.db, ids);
  const emoji = new RealmEmojiRepository(deps.db, ids);
  const files = new FileStore(deps.db);
  await Promise.all([
    realms.init(),
    fields.init(),
    folders.init(),
    linkifiers.init(),
    playgrounds.init(),
    emoji.init(),
    files.init(),
  ]);
  const emojiList = new RealmEmojiList(emoji, deps.nc, deps.log);
  const fileChunks = files.handlers();
  const fieldList = new ProfileFieldList(fields, deps.nc, deps.log);
  const hosts = new RealmHosts(deps.config);
  // copies of what realm-config checks of the services above it, which it never asks (docs/architecture.md)
  const userGroups = await UserGroupCopy.start(deps.nc, deps.db, deps.log);
  const channels = await ChannelCopy.start(deps.nc, deps.db, DURABLE_CONSUMERS.realmConfigChannels, deps.log);
  const folderState = channelFoldersState(folders, deps.nc, deps.log);
  const linkifierStates = linkifiersStates(linkifiers, deps.nc, deps.log);
  const playgroundState = playgroundsState(playgrounds, deps.nc, deps.log);
  // every instance forgets an organization's record when its settings change (no queue group)
  const realmChanges = subscribeEvent(
    deps.nc,
    realmConfigEvents.realmUpdated,
    ({ realmId }) => realms.forget(realmId),
    {
      log: deps.log,
    },
  );
  deps.server
    .handle(realmConfig.resolveRealm, resolveRealmHandler(realms, hosts))
    .handle(realmConfig.createRealm, createRealmHandler(realms, hosts))
    .handle(realmConfig.getServerSettings, getServerSettingsHandler(realms))
    .handle(realmConfig.getRealmSettings, getRealmSettingsHandler(realms))
    .handle(realmConfig.updateRealm, updateRealmHandler({ realms, events: deps.events, channels, userGroups }))
    .handle(realmConfig.listProfileFields, listProfileFieldsHandler(fieldList))
    .handle(realmConfig.createProfileField, createProfileFieldHandler(fields, deps.events))
    .handle(realmConfig.updateProfileField, updateProfileFieldHandler(fields, deps.events))
    .handle(realmConfig.deleteProfileField, deleteProfileFieldHandler(fields, deps.events))
    .handle(realmConfig.reorderProfileFields, reorderProfileFieldsHandler(fields, deps.events))
    .handle(realmConfig.listChannelFolders, listChannelFoldersHandler(folders))
    .handle(realmConfig.createChannelFolder, createChannelFolderHandler(folders, deps.events))
    .handle(realmConfig.updateChannelFolder, updateChannelFolderHandler(folders, deps.events))
    .handle(realmConfig.reorderChannelFolders, reorderChannelFoldersHandler(folders, deps.events))
    .handle(realmConfig.listLinkifiers, listLinkifiersHandler(linkifiers))
    .handle(realmConfig.listLegacyFilters, listLegacyFiltersHandler(linkifiers))
    .handle(realmConfig.createLinkifier, createLinkifierHandler(linkifiers, deps.events))
    .handle(realmConfig.updateLinkifier, updateLinkifierHandler(linkifiers, deps.events))
    .handle(realmConfig.deleteLinkifier, deleteLinkifierHandler(linkifiers, deps.events))
    .handle(realmConfig.reorderLinkifiers, reorderLinkifiersHandler(linkifiers, deps.events))
    .handle(realmConfig.createPlayground, createPlaygroundHandler(playgrounds, deps.events))
    .handle(realmConfig.deletePlayground, deletePlaygroundHandler(playgrounds, deps.events))
    .handle(realmConfig.listRealmEmoji, listRealmEmojiHandler(emojiList))
    .handle(
      realmConfig.addRealmEmoji,
      addRealmEmojiHandler({ emoji, list: emojiList, files, realms, userGroups, events: deps.events }),
    )
    .handle(realmConfig.removeRealmEmoji, removeRealmEmojiHandler({ emoji, list: emojiList, events: deps.events }))
    .handle(realmConfig.openEmojiImage, openEmojiImageHandler(emoji))
    .handle(realmConfig.emojiFiles.putChunk, fileChunks.put)
    .handle(realmConfig.emojiFiles.readChunk, fileChunks.read)
    .handle(
      realmConfig.registerState,
      registerStateHandler(realmConfig.registerState, [
        versionState,
        realmState(realms, deps.config),
        profileFieldsState(fieldList),
        realmBillingState,
        ...unconfiguredStates,
        ...linkifierStates.providers,
        playgroundState.provider,
        emojiList.provider,
        folderState.provider,
      ]),
    );
  return {
    stop: async () => {
      realmChanges.unsubscribe();
      folderState.stop();
      linkifierStates.stop();
      playgroundState.stop();
      emojiList.stop();
      await Promise.all([userGroups.stop(), channels.stop(), fieldList.stop()]);
    },
  };
}
