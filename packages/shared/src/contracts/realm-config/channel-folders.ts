import { z } from "zod";
import { defineContract } from "../../contract";
import { LIMITS } from "../../domain/limits";
import { int, intList } from "../common";

/** Channel folder (channel_folder_id in create's reply, as Zulip answers; Zulip's ChannelFolder in lists). */
export const channelFolderSchema = z.strictObject({
  id: int,
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  order: int,
  date_created: int,
  creator_id: int.nullable(),
  is_archived: z.boolean(),
});

export type ChannelFolder = z.infer<typeof channelFolderSchema>;

/** GET /channel_folders, by `order`; messaging calls it over the bus to check a channel's folder_id. */
export const listChannelFolders = defineContract({
  subject: "realm-config.channel_folders.list",
  http: { method: "GET", path: "/channel_folders", auth: "user" },
  params: z.object({ include_archived: z.boolean().default(false) }),
  reply: z.strictObject({ channel_folders: z.array(channelFolderSchema) }),
});

/** Python's len(): Zulip's length limits count code points, not UTF-16 units. */
const cappedString = (name: string, max: number) =>
  z.string().refine((s) => [...s].length <= max, `${name} is too long (limit: ${max} characters)`);

/** POST /channel_folders/create (Zulip's create_channel_folder). */
export const createChannelFolder = defineContract({
  subject: "realm-config.channel_folders.create",
  http: { method: "POST", path: "/channel_folders/create", auth: "user" },
  params: z.object({
    name: cappedString("name", LIMITS.max_channel_folder_name_length),
    description: cappedString("description", LIMITS.max_channel_folder_description_length),
  }),
  reply: z.strictObject({ channel_folder_id: int }),
});

/** PATCH /channel_folders/{channel_folder_id} (Zulip's update_channel_folder): each field sent is changed. */
export const updateChannelFolder = defineContract({
  subject: "realm-config.channel_folders.update",
  http: { method: "PATCH", path: "/channel_folders/{channel_folder_id}", auth: "user" },
  params: z.object({
    channel_folder_id: int,
    name: cappedString("name", LIMITS.max_channel_folder_name_length).optional(),
    description: cappedString("description", LIMITS.max_channel_folder_description_length).optional(),
    is_archived: z.boolean().optional(),
  }),
  reply: z.strictObject({}),
});

/** PATCH /channel_folders (Zulip's reorder_realm_channel_folders): `order` lists every folder's id, archived ones too. */
export const reorderChannelFolders = defineContract({
  subject: "realm-config.channel_folders.reorder",
  http: { method: "PATCH", path: "/channel_folders", auth: "user" },
  params: z.object({ order: intList }),
  reply: z.strictObject({}),
});
