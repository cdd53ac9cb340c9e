// Events realm-config publishes.
import { z } from "zod";
import { channelFolderSchema } from "../contracts/realm-config/channel-folders";
import { customProfileFieldSchema } from "../contracts/realm-config/profile-fields";
import { realmEmojiMapSchema } from "../contracts/realm-config/emoji";
import { clientEventPayload, defineEvent } from "./define";

/** The organization's whole list of custom profile fields, after any change to it. */
export const customProfileFields = defineEvent(
  "realm-config",
  "custom_profile_fields",
  clientEventPayload(
    z.strictObject({ type: z.literal("custom_profile_fields"), fields: z.array(customProfileFieldSchema) }),
  ),
);

/**
 * A channel folder created, changed (`data`: the fields that changed, as Zulip's
 * do_send_channel_folder_update_event sends them) or the folders reordered
 * (`order`: the list PATCH /channel_folders was given), for everyone in the organization.
 */
export const channelFolder = defineEvent(
  "realm-config",
  "channel_folder",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.strictObject({ type: z.literal("channel_folder"), op: z.literal("add"), channel_folder: channelFolderSchema }),
      z.strictObject({
        type: z.literal("channel_folder"),
        op: z.literal("update"),
        channel_folder_id: z.number().int(),
        data: z.union([
          z.strictObject({ name: z.string() }),
          z.strictObject({ description: z.string(), rendered_description: z.string() }),
          z.strictObject({ is_archived: z.boolean() }),
        ]),
      }),
      z.strictObject({ type: z.literal("channel_folder"), op: z.literal("reorder"), order: z.array(z.number().int()) }),
    ]),
  ),
);

/**
 * An organization setting changed (PATCH /realm), for everyone in the
 * organization, in the form the newest Zulip sends for that setting
 * (do_set_realm_property, do_change_realm_permission_group_setting,
 * do_set_realm_stream): `update` with one property and value, or
 * `update_dict` (property "default") with the changed keys. Every instance of
 * every service that keeps the settings drops its copy on it.
 */
export const realmUpdated = defineEvent(
  "realm-config",
  "realm",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.strictObject({
        type: z.literal("realm"),
        op: z.literal("update"),
        property: z.string(),
        value: z.union([z.string(), z.boolean(), z.number().int(), z.null()]),
      }),
      z.strictObject({
        type: z.literal("realm"),
        op: z.literal("update_dict"),
        property: z.literal("default"),
        data: z.record(z.string(), z.unknown()),
      }),
    ]),
  ),
);

/**
 * A custom emoji was added or deactivated: everyone in the organization hears
 * the whole set (Zulip's notify_realm_emoji), and every instance that keeps it
 * (RealmEmojiSource, register's realm_emoji) replaces its copy.
 */
export const realmEmojiChanged = defineEvent(
  "realm-config",
  "realm_emoji",
  clientEventPayload(
    z.strictObject({ type: z.literal("realm_emoji"), op: z.literal("update"), realm_emoji: realmEmojiMapSchema }),
  ),
);
