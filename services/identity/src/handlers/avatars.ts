import {
  MAX_AVATAR_FILE_SIZE_MIB,
  ZulipError,
  badRequest,
  chunkCount,
  identity,
  identityEvents,
  isAdmin,
  newFileId,
  realmConfig,
  requireUser,
  type Actor,
  type BusClient,
  type EventPublisher,
  type FileStore,
  type Handler,
  type HandlerContext,
  type RealmRef,
} from "@teamchat/shared";
import type { AvatarFileRepository } from "../avatars/avatar-file.repository";
import { AVATAR_IMAGE_TYPES, avatarImages, badImage } from "../avatars/avatar-images";
import { botAdministrators } from "../bots/bot-permissions";
import { dummyEmailUserId } from "../users/access";
import { personUpdated } from "../users/events";
import type { NewAvatar } from "../users/user.repository";
import type { UserDoc } from "../users/user.schema";
import type { UserDirectory } from "../users/user-directory";
import { apiEmail, avatarUrl, gravatarUrl } from "../users/user-view";

interface AvatarDeps {
  users: UserDirectory;
  events: EventPublisher<"identity">;
  bus: BusClient;
  files: FileStore;
  avatarFiles: AvatarFileRepository;
}

/** Zulip's avatar_changes_disabled check: the organization's setting binds everyone but administrators. */
async function checkAvatarChangesAllowed(deps: { bus: BusClient }, actor: Actor, ctx: HandlerContext): Promise<void> {
  if (isAdmin(actor)) return;
  const settings = await deps.bus.request(realmConfig.getRealmSettings, {}, ctx);
  if (settings.avatar_changes_disabled) throw badRequest("Avatar changes are disabled in this organization.");
}

/**
 * The user's new avatar stored (Zulip's do_change_avatar_fields): the
 * replaced avatar's images removed, then Zulip's notify_avatar_url_change (a
 * bot's administrators hear of its new URL, everyone of the new avatar).
 */
async function changeAvatar(
  deps: AvatarDeps,
  realm: RealmRef,
  userId: number,
  avatar: NewAvatar,
  ctx: HandlerContext,
): Promise<UserDoc> {
  const changed = await deps.users.changeAvatar(realm.id, userId, avatar);
  if (!changed) throw badRequest("No such user");
  const { before, after } = changed;
  if (before.avatarPath !== undefined && before.avatarPath !== after.avatarPath) {
    await deps.files.remove(realm.id, await deps.avatarFiles.removeAll(realm.id, before.avatarPath));
  }
  if (after.isBot) {
    const userIds = await botAdministrators(deps.users, realm.id, after);
    deps.events.publish(
      identityEvents.realmBot,
      {
        realmId: realm.id,
        userIds,
        event: { type: "realm_bot", op: "update", bot: { user_id: userId, avatar_url: avatarUrl(after) } },
      },
      ctx.requestId,
    );
  }
  const person = {
    user_id: userId,
    avatar_source: after.avatarSource ?? "G",
    avatar_url: avatarUrl(after),
    avatar_url_medium: avatarUrl(after, true),
    avatar_version: after.avatarVersion,
  };
  deps.events.publish(identityEvents.realmUser, personUpdated(realm.id, person), ctx.requestId);
  return after;
}

/**
 * POST /users/me/avatar (Zulip's set_avatar_backend and upload_avatar_image):
 * one image, kept as uploaded and as Zulip's two PNG squares.
 */
export const setAvatarHandler =
  (deps: AvatarDeps): Handler<typeof identity.setAvatar> =>
  async ({ files }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [file] = files;
    await deps.files.accept(realm.id, files, async () => {
      if (!file || files.length !== 1) throw badRequest("You must upload exactly one avatar.");
      await checkAvatarChangesAllowed(deps, actor, ctx);
      if (file.size > MAX_AVATAR_FILE_SIZE_MIB * 1024 * 1024) {
        throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_AVATAR_FILE_SIZE_MIB} MiB`);
      }
      if (!AVATAR_IMAGE_TYPES.has(file.content_type)) throw badImage("Invalid image format");
    });
    const original = file!;
    let images;
    try {
      images = await avatarImages(await deps.files.read(realm.id, original));
    } catch (err) {
      await deps.files.remove(realm.id, [original.file_id]);
      throw err;
    }
    const path = newFileId();
    const resized = [
      { fileName: `${path}.png`, fileId: newFileId(), data: images.small },
      { fileName: `${path}-medium.png`, fileId: newFileId(), data: images.medium },
    ];
    for (const { fileId, data } of resized) await deps.files.write(realm.id, fileId, data);
    await deps.avatarFiles.add([
      ...resized.map(({ fileName, fileId, data }) => ({
        realmId: realm.id,
        path,
        fileName,
        fileId,
        contentType: "image/png",
        size: data.length,
      })),
      {
        realmId: realm.id,
        path,
        fileName: `${path}.original`,
        fileId: original.file_id,
        contentType: original.content_type,
        size: original.size,
      },
    ]);
    const user = await changeAvatar(deps, realm, actor.userId, { source: "U", path }, ctx);
    return { avatar_url: avatarUrl(user) };
  };

/** DELETE /users/me/avatar (Zulip's delete_avatar_backend): back to Gravatar. */
export const deleteAvatarHandler =
  (deps: AvatarDeps): Handler<typeof identity.deleteAvatar> =>
  async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await checkAvatarChangesAllowed(deps, actor, ctx);
    const user = await changeAvatar(deps, realm, actor.userId, { source: "G" }, ctx);
    return { avatar_url: avatarUrl(user) };
  };

/** Python's int(): digits with an optional sign, surrounding whitespace allowed. */
const asUserId = (text: string): number | null => (/^\s*[-+]?\d+\s*$/.test(text) ? Number(text) : null);

/** Zulip's get_user (the API address, case-insensitive) including its system bots, or null. */
async function userByApiEmail(users: UserDirectory, realm: RealmRef, email: string): Promise<UserDoc | null> {
  const wanted = email.trim().toLowerCase();
  const dummyId = dummyEmailUserId(wanted, realm);
  if (dummyId !== null) return users.byId(realm.id, dummyId);
  const user = await users.byEmail(realm.id, wanted);
  return user && apiEmail(user, realm).toLowerCase() === wanted ? user : null;
}

/**
 * GET /avatar/{email_or_id} (Zulip's avatar view): where the user's avatar is,
 * deactivated users' and system bots' too; one unknown here is treated as a
 * new Gravatar of what was asked.
 */
export const findAvatarHandler =
  ({ users }: { users: UserDirectory }): Handler<typeof identity.findAvatar> =>
  async ({ email_or_id, medium }, ctx) => {
    const { realm } = requireUser(ctx);
    const id = asUserId(email_or_id);
    const user = id === null ? await userByApiEmail(users, realm, email_or_id) : await users.byId(realm.id, id);
    return { url: user ? avatarUrl(user, medium) : gravatarUrl(email_or_id, 1, medium) };
  };

/** The gateway's /user_avatars/{realm_id}/{file_name}: an uploaded avatar's image, to anyone. */
export const openAvatarHandler =
  ({ avatarFiles }: { avatarFiles: AvatarFileRepository }): Handler<typeof identity.openAvatar> =>
  async ({ realm_id, file_name }, ctx) => {
    const found =
      ctx.realm && realm_id === `${ctx.realm.id}` ? await avatarFiles.byFileName(ctx.realm.id, file_name) : null;
    if (!found) throw new ZulipError("BAD_REQUEST", "File not found", 404);
    return { file_id: found.fileId, content_type: found.contentType, size: found.size, chunks: chunkCount(found.size) };
  };
