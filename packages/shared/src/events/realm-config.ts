// Events realm-config publishes.
import { z } from "zod";
import { channelFolderSchema } from "../contracts/realm-config/channel-folders";
import { realmLinkifierSchema, realmPlaygroundSchema } from "../contracts/realm-config/linkifiers";
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
 * Users' values of a custom profile field that no longer mean anything:
 * every value when the field was deleted (`choices` null), or the values
 * naming list choices an update removed. identity, which keeps users'
 * profile_data, drops them (one instance: a queue group), as Zulip's
 * CustomProfileFieldValue rows go with their field or choice.
 */
export const profileFieldValuesDropped = defineEvent(
  "realm-config",
  "profile_field_values_dropped",
  z.strictObject({ realmId: z.number().int(), fieldId: z.number().int(), choices: z.array(z.string()).nullable() }),
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
 * The organization's whole list of linkifiers, in processing order, after any
 * change to it (Zulip's notify_linkifiers), for everyone in the organization;
 * queues without the linkifier_url_template capability do not get it. Every
 * messaging instance forgets its copy of the organization's linkifiers on it.
 * Zulip no longer sends the legacy realm_filters event (feature level 176).
 */
export const realmLinkifiers = defineEvent(
  "realm-config",
  "realm_linkifiers",
  clientEventPayload(
    z.strictObject({ type: z.literal("realm_linkifiers"), realm_linkifiers: z.array(realmLinkifierSchema) }),
  ),
);

/** The organization's whole list of code playgrounds after any change (Zulip's notify_realm_playgrounds). */
export const realmPlaygrounds = defineEvent(
  "realm-config",
  "realm_playgrounds",
  clientEventPayload(
    z.strictObject({ type: z.literal("realm_playgrounds"), realm_playgrounds: z.array(realmPlaygroundSchema) }),
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
