import { z } from "zod";
import { defineContract } from "../../contract";

/** Zulip's AlertWord.MAX_WORD_LENGTH. */
export const MAX_ALERT_WORD_LENGTH = 100;

const alertWordsReply = z.strictObject({ alert_words: z.array(z.string()) });

/**
 * Words of at most MAX_ALERT_WORD_LENGTH characters, counted as Python's len()
 * (code points): Zulip's "alert_words[0] is too long (limit: 100 characters)".
 */
const cappedWords = z.array(z.string()).superRefine((words, ctx) => {
  const i = words.findIndex((w) => [...w].length > MAX_ALERT_WORD_LENGTH);
  if (i >= 0)
    ctx.addIssue({
      code: "custom",
      message: `alert_words[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`,
    });
});

/** GET /users/me/alert_words: the caller's alert words, in the order they were added. */
export const getAlertWords = defineContract({
  subject: "messaging.alert_words.list",
  http: { method: "GET", path: "/users/me/alert_words", auth: "user" },
  params: z.object({}),
  reply: alertWordsReply,
});

/**
 * POST /users/me/alert_words (Zulip's add_alert_words): words are stripped,
 * blank ones dropped, and those the user has already (case-insensitively)
 * ignored; the reply lists all the user's words.
 */
export const addAlertWords = defineContract({
  subject: "messaging.alert_words.add",
  http: { method: "POST", path: "/users/me/alert_words", auth: "user" },
  params: z.object({ alert_words: cappedWords }),
  reply: alertWordsReply,
});

/** DELETE /users/me/alert_words: removes these words (case-insensitively); unknown ones are ignored. */
export const removeAlertWords = defineContract({
  subject: "messaging.alert_words.remove",
  http: { method: "DELETE", path: "/users/me/alert_words", auth: "user" },
  params: z.object({ alert_words: z.array(z.string()) }),
  reply: alertWordsReply,
});
