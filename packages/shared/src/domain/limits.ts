/** Zulip's fixed limits (Stream.MAX_*_LENGTH, MAX_TOPIC_NAME_LENGTH, MAX_MESSAGE_LENGTH, ChannelFolder.MAX_*_LENGTH). */
export const LIMITS = {
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_topic_length: 60,
  max_message_length: 10000,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
} as const;

/** Zulip's settings.MAX_FILE_UPLOAD_SIZE (MiB): the largest file POST /user_uploads takes. */
export const MAX_FILE_UPLOAD_SIZE_MIB = 25;

/** Zulip's settings.MAX_EMOJI_FILE_SIZE_MIB: the largest custom emoji image. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;
