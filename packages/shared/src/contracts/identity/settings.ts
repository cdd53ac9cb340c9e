import { z } from "zod";
import { defineContract } from "../../contract";

const oneOf = <const T extends readonly [number, ...number[]]>(...values: T) => z.literal(values).optional();

/** PATCH /settings: every personal setting Zulip accepts there (its json_change_settings), by Zulip's name. */
export const settingsParams = z.object({
  full_name: z.string().optional(),
  email: z.string().optional(),
  old_password: z.string().optional(),
  new_password: z.string().optional(),
  twenty_four_hour_time: z.boolean().optional(),
  web_mark_read_on_scroll_policy: oneOf(1, 2, 3),
  web_channel_default_view: oneOf(1, 2, 3, 4),
  starred_message_counts: z.boolean().optional(),
  receives_typing_notifications: z.boolean().optional(),
  web_suggest_update_timezone: z.boolean().optional(),
  fluid_layout_width: z.boolean().optional(),
  high_contrast_mode: z.boolean().optional(),
  web_font_size_px: z.number().int().optional(),
  web_line_height_percent: z.number().int().optional(),
  color_scheme: oneOf(1, 2, 3),
  enable_drafts_synchronization: z.boolean().optional(),
  translate_emoticons: z.boolean().optional(),
  display_emoji_reaction_users: z.boolean().optional(),
  default_language: z.string().optional(),
  web_home_view: z.enum(["recent_topics", "inbox", "all_messages"]).optional(),
  web_escape_navigates_to_home_view: z.boolean().optional(),
  left_side_userlist: z.boolean().optional(),
  emojiset: z.enum(["google", "twitter", "text"]).optional(),
  demote_inactive_streams: oneOf(1, 2, 3),
  user_list_style: oneOf(1, 2, 3),
  web_animate_image_previews: z.enum(["always", "on_hover", "never"]).optional(),
  web_stream_unreads_count_display_policy: oneOf(1, 2, 3),
  hide_ai_features: z.boolean().optional(),
  timezone: z.string().optional(),
  enable_stream_desktop_notifications: z.boolean().optional(),
  enable_stream_email_notifications: z.boolean().optional(),
  enable_stream_push_notifications: z.boolean().optional(),
  enable_stream_audible_notifications: z.boolean().optional(),
  notification_sound: z.string().optional(),
  enable_desktop_notifications: z.boolean().optional(),
  enable_sounds: z.boolean().optional(),
  email_notifications_batching_period_seconds: z.number().int().optional(),
  enable_offline_email_notifications: z.boolean().optional(),
  enable_offline_push_notifications: z.boolean().optional(),
  enable_online_push_notifications: z.boolean().optional(),
  enable_followed_topic_desktop_notifications: z.boolean().optional(),
  enable_followed_topic_email_notifications: z.boolean().optional(),
  enable_followed_topic_push_notifications: z.boolean().optional(),
  enable_followed_topic_audible_notifications: z.boolean().optional(),
  enable_digest_emails: z.boolean().optional(),
  enable_marketing_emails: z.boolean().optional(),
  enable_login_emails: z.boolean().optional(),
  message_content_in_email_notifications: z.boolean().optional(),
  pm_content_in_desktop_notifications: z.boolean().optional(),
  wildcard_mentions_notify: z.boolean().optional(),
  enable_followed_topic_wildcard_mentions_notify: z.boolean().optional(),
  desktop_icon_count_display: oneOf(1, 2, 3, 4),
  realm_name_in_email_notifications_policy: oneOf(1, 2, 3),
  automatically_follow_topics_policy: oneOf(1, 2, 3, 4),
  automatically_unmute_topics_in_muted_streams_policy: oneOf(1, 2, 3, 4),
  automatically_follow_topics_where_mentioned: z.boolean().optional(),
  presence_enabled: z.boolean().optional(),
  enter_sends: z.boolean().optional(),
  send_private_typing_notifications: z.boolean().optional(),
  send_stream_typing_notifications: z.boolean().optional(),
  send_read_receipts: z.boolean().optional(),
  allow_private_data_export: z.boolean().optional(),
  email_address_visibility: oneOf(1, 2, 3, 4, 5),
  web_navigate_to_sent_message: z.boolean().optional(),
});

/** Every personal setting's value, as the user has it (defaults merged): the settings PATCH /settings changes. */
export const settingValuesSchema = settingsParams
  .omit({ full_name: true, email: true, old_password: true, new_password: true, timezone: true })
  .required();
export type SettingValues = z.infer<typeof settingValuesSchema>;

export const updateSettings = defineContract({
  subject: "identity.settings.update",
  http: { method: "PATCH", path: "/settings", auth: "user" },
  params: settingsParams,
  reply: z.object({}),
});

/** Deprecated aliases (before feature level 80 the settings were split over these paths). */
export const updateDisplaySettings = defineContract({
  ...updateSettings,
  subject: "identity.settings.update_display",
  http: { method: "PATCH", path: "/settings/display", auth: "user" },
});

export const updateNotificationSettings = defineContract({
  ...updateSettings,
  subject: "identity.settings.update_notifications",
  http: { method: "PATCH", path: "/settings/notifications", auth: "user" },
});
