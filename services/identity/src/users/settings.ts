import type { identity } from "@teamchat/shared";
import { EmailVisibility, type UserDoc } from "./user.schema";

/**
 * Zulip's defaults for every personal setting (zerver/models/users.py
 * UserBaseSettings). Users store only what they changed; reads merge.
 */
export const SETTING_DEFAULTS: Settings = {
  twenty_four_hour_time: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  enable_drafts_synchronization: true,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: "en",
  web_home_view: "inbox",
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: "google",
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: "on_hover",
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: "zulip",
  wildcard_mentions_notify: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  enable_desktop_notifications: true,
  pm_content_in_desktop_notifications: true,
  enable_sounds: true,
  enable_offline_email_notifications: true,
  message_content_in_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  desktop_icon_count_display: 1,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  presence_enabled: true,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  email_notifications_batching_period_seconds: 120,
  enter_sends: false,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  email_address_visibility: EmailVisibility.EVERYONE,
  web_navigate_to_sent_message: true,
};
export type Settings = identity.SettingValues;
export type SettingName = keyof Settings;
export type SettingValue = Settings[SettingName];

export const isSettingName = (name: string): name is SettingName => Object.hasOwn(SETTING_DEFAULTS, name);

export const settingsOf = (user: Pick<UserDoc, "settings">): Settings => ({ ...SETTING_DEFAULTS, ...user.settings });

/** Sound names Zulip ships (static/audio/notification_sounds), "none" disables. */
export const NOTIFICATION_SOUNDS = ["chime-up", "ding", "droplet", "ping", "swoosh", "tap", "zulip"];

export const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
];
