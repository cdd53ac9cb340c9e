// Events realm-config publishes.
import { z } from "zod";
import { channelFolderSchema } from "../contracts/realm-config/channel-folders";
import { customProfileFieldSchema } from "../contracts/realm-config/profile-fields";
import { clientEventPayload, defineEvent } from "./define";

/** The organization's whole list of custom profile fields, after any change to it. */
export const customProfileFields = defineEvent(
  "realm-config",
  "custom_profile_fields",
  clientEventPayload(
    z.strictObject({ type: z.literal("custom_profile_fields"), fields: z.array(customProfileFieldSchema) }),
  ),
);

/** A new channel folder, for everyone in the organization. */
export const channelFolder = defineEvent(
  "realm-config",
  "channel_folder",
  clientEventPayload(
    z.strictObject({ type: z.literal("channel_folder"), op: z.literal("add"), channel_folder: channelFolderSchema }),
  ),
);
