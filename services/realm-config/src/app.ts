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
import { getRealmMailContextHandler } from "./handlers/get-realm-mail-context";
import { listRealmsHandler, realmByIdHandler, resolveRealmHandler } from "./handlers/resolve-realm";
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
import { exportRealmConfigHandler } from "./handlers/export-realm-config";

export async function buildRealmConfig({
  db,
  nc,
  config,
  log,
  events,
  server,
}: ServiceDeps<"realm-config">): Promise<RunningService> {
  const ids = new IdAllocator(db);
  const realms = new RealmRecordRepository(db, ids, nc);
  const fields = new ProfileFieldRepository(db, ids);
  const folders = new ChannelFolderRepository(db, ids);
  const linkifiers = new LinkifierRepository(db, ids);
  const playgrounds = new PlaygroundRepository(db, ids);
  const emoji = new RealmEmojiRepository(db, ids);
  const files = new FileStore(db);
  await Promise.all([
    realms.init(),
    fields.init(),
    folders.init(),
    linkifiers.init(),
    playgrounds.init(),
    emoji.init(),
    files.init(),
  ]);
  const emojiList = new RealmEmojiList(emoji, nc, log);
  const fileChunks = files.handlers();
  const fieldList = new ProfileFieldList(fields, nc, log);
  const hosts = new RealmHosts(config);
  // copies of what realm-config checks of the services above it, which it never asks (docs/architecture.md)
  const userGroups = await UserGroupCopy.start(nc, db, log);
  const channels = await ChannelCopy.start(nc, db, DURABLE_CONSUMERS.realmConfigChannels, log);
  const folderState = channelFoldersState({ folders, nc, log });
  const linkifierStates = linkifiersStates({ linkifiers, nc, log });
  const playgroundState = playgroundsState({ playgrounds, nc, log });
  // every instance forgets an organization's record when its settings change (no queue group)
  const realmChanges = subscribeEvent(nc, realmConfigEvents.realmUpdated, ({ realmId }) => realms.forget(realmId), {
    log,
  });
  server
    .handle(realmConfig.resolveRealm, resolveRealmHandler({ realms, hosts }))
    .handle(realmConfig.getRealmMailContext, getRealmMailContextHandler({ realms, hosts }))
    .handle(realmConfig.realmById, realmByIdHandler({ realms, hosts }))
    .handle(realmConfig.listRealms, listRealmsHandler({ realms, hosts }))
    .handle(realmConfig.createRealm, createRealmHandler({ realms, hosts }))
    .handle(realmConfig.getServerSettings, getServerSettingsHandler({ realms }))
    .handle(realmConfig.getRealmSettings, getRealmSettingsHandler({ realms }))
    .handle(realmConfig.updateRealm, updateRealmHandler({ realms, events, channels, userGroups }))
    .handle(realmConfig.listProfileFields, listProfileFieldsHandler({ fieldList }))
    .handle(realmConfig.exportRealmConfig, exportRealmConfigHandler({ realms, fields, emoji, linkifiers }))
    .handle(realmConfig.createProfileField, createProfileFieldHandler({ fields, events }))
    .handle(realmConfig.updateProfileField, updateProfileFieldHandler({ fields, events }))
    .handle(realmConfig.deleteProfileField, deleteProfileFieldHandler({ fields, events }))
    .handle(realmConfig.reorderProfileFields, reorderProfileFieldsHandler({ fields, events }))
    .handle(realmConfig.listChannelFolders, listChannelFoldersHandler({ folders }))
    .handle(realmConfig.createChannelFolder, createChannelFolderHandler({ folders, events }))
    .handle(realmConfig.updateChannelFolder, updateChannelFolderHandler({ folders, events }))
    .handle(realmConfig.reorderChannelFolders, reorderChannelFoldersHandler({ folders, events }))
    .handle(realmConfig.listLinkifiers, listLinkifiersHandler({ linkifiers }))
    .handle(realmConfig.listLegacyFilters, listLegacyFiltersHandler({ linkifiers }))
    .handle(realmConfig.createLinkifier, createLinkifierHandler({ linkifiers, events }))
    .handle(realmConfig.updateLinkifier, updateLinkifierHandler({ linkifiers, events }))
    .handle(realmConfig.deleteLinkifier, deleteLinkifierHandler({ linkifiers, events }))
    .handle(realmConfig.reorderLinkifiers, reorderLinkifiersHandler({ linkifiers, events }))
    .handle(realmConfig.createPlayground, createPlaygroundHandler({ playgrounds, events }))
    .handle(realmConfig.deletePlayground, deletePlaygroundHandler({ playgrounds, events }))
    .handle(realmConfig.listRealmEmoji, listRealmEmojiHandler({ list: emojiList }))
    .handle(
      realmConfig.addRealmEmoji,
      addRealmEmojiHandler({ emoji, list: emojiList, files, realms, userGroups, events }),
    )
    .handle(realmConfig.removeRealmEmoji, removeRealmEmojiHandler({ emoji, list: emojiList, events }))
    .handle(realmConfig.openEmojiImage, openEmojiImageHandler({ emoji }))
    .handle(realmConfig.emojiFiles.putChunk, fileChunks.put)
    .handle(realmConfig.emojiFiles.readChunk, fileChunks.read)
    .handle(
      realmConfig.registerState,
      registerStateHandler(realmConfig.registerState, [
        versionState,
        realmState({ realms, config }),
        profileFieldsState({ fieldList }),
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
