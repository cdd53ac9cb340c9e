import { z } from "zod";
import { int, groupSettingValueSchema } from "../common";
import { CHANNEL_GROUP_SETTINGS, type ChannelGroupSetting } from "../../domain/groups";

const groupSettingParams = Object.fromEntries(
  CHANNEL_GROUP_SETTINGS.map((name) => [name, groupSettingValueSchema.optional()]),
) as Record<ChannelGroupSetting, z.ZodOptional<typeof groupSettingValueSchema>>;

/** Channel properties shared by POST /channels/create and POST /users/me/subscriptions. */
export const channelCreationParams = {
  announce: z.boolean().default(false),
  invite_only: z.boolean().default(false),
  is_web_public: z.boolean().default(false),
  is_default_stream: z.boolean().default(false),
  history_public_to_subscribers: z.boolean().optional(),
  message_retention_days: z.union([z.string(), int]).default("realm_default"),
  topics_policy: z.string().optional(),
  ...groupSettingParams,
};
