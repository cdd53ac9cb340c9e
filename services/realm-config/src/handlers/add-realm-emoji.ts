import {
  MAX_EMOJI_FILE_SIZE_MIB,
  isBuiltInEmojiName,
  badRequest,
  isAdmin,
  isDuplicateKey,
  requireUser,
  type EventPublisher,
  type FileStore,
  type Handler,
  type realmConfig,
} from "@teamchat/shared";
import { EMOJI_IMAGE_EXTENSIONS, checkValidEmojiName } from "../emoji/emoji-rules";
import type { RealmEmojiList } from "../emoji/realm-emoji-list";
import type { RealmEmojiRepository } from "../emoji/realm-emoji.repository";
import type { RealmRecordRepository } from "../realms/realm.repository";
import { realmSettings } from "../realms/settings";
import type { UserGroupCopy } from "../user-groups/user-group-copy";

const nameTaken = () => badRequest("A custom emoji with this name already exists.");

/**
 * POST /realm/emoji/{emoji_name} (Zulip's upload_emoji and check_add_realm_emoji):
 * spaces become underscores; the caller must be in can_add_custom_emoji_group;
 * one image of at most MAX_EMOJI_FILE_SIZE_MIB; a built-in emoji's name is for
 * administrators. Everyone hears realm_emoji. A refused request leaves no chunks.
 */
export const addRealmEmojiHandler =
  (deps: {
    emoji: RealmEmojiRepository;
    list: RealmEmojiList;
    files: FileStore;
    realms: RealmRecordRepository;
    userGroups: UserGroupCopy;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.addRealmEmoji> =>
  async ({ emoji_name, files }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const name = emoji_name.trim().replace(/ /g, "_");
    const [file] = files;
    await deps.files.accept(realm.id, files, async () => {
      checkValidEmojiName(name);
      const [record, groups] = await Promise.all([deps.realms.byId(realm.id), deps.userGroups.get(ctx)]);
      if (!groups.includes(realmSettings(record!).can_add_custom_emoji_group, actor)) {
        throw badRequest("Insufficient permission");
      }
      if (await deps.emoji.activeByName(realm.id, name)) throw nameTaken();
      if (!file || files.length !== 1) throw badRequest("You must upload exactly one file.");
      if (isBuiltInEmojiName(name) && !isAdmin(actor)) {
        throw badRequest("Only administrators can override built-in emoji.");
      }
      if (file.size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
        throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
      }
      if (!(file.content_type in EMOJI_IMAGE_EXTENSIONS)) throw badRequest("Invalid image format");
    });
    try {
      await deps.emoji.insert(
        realm.id,
        { name, fileId: file.file_id, contentType: file.content_type, size: file.size, authorId: actor.userId },
        EMOJI_IMAGE_EXTENSIONS[file.content_type]!,
      );
    } catch (err) {
      await deps.files.remove(realm.id, [file.file_id]);
      if (isDuplicateKey(err)) throw nameTaken();
      throw err;
    }
    await deps.list.changed(deps.events, realm.id, ctx.requestId);
    return {};
  };
