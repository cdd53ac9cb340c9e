import { identity, type BusServer, type BusClient, type EventPublisher, type FileStore } from "@teamchat/shared";
import type { AvatarFileRepository } from "../avatars/avatar-file.repository";
import { deleteAvatarHandler, findAvatarHandler, openAvatarHandler, setAvatarHandler } from "../handlers/avatars";
import type { UserDirectory } from "../users/user-directory";

/** Uploaded avatars: their images' chunks over the bus, setting, deleting, finding and opening them. */
export function registerAvatarOperations(
  server: BusServer,
  {
    users,
    files,
    avatarFiles,
    events,
    bus,
  }: {
    users: UserDirectory;
    files: FileStore;
    avatarFiles: AvatarFileRepository;
    events: EventPublisher<"identity">;
    bus: BusClient;
  },
): void {
  const fileChunks = files.handlers();
  server
    .handle(identity.avatarFiles.putChunk, fileChunks.put)
    .handle(identity.avatarFiles.readChunk, fileChunks.read)
    .handle(identity.setAvatar, setAvatarHandler({ users, events, bus, files, avatarFiles }))
    .handle(identity.deleteAvatar, deleteAvatarHandler({ users, events, bus, files, avatarFiles }))
    .handle(identity.findAvatar, findAvatarHandler({ users }))
    .handle(identity.openAvatar, openAvatarHandler({ avatarFiles }));
}
