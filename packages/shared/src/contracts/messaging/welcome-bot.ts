import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";
import { WELCOME_MESSAGE_CUSTOM_TEXT_MAX_LENGTH } from "../identity/invites";

/**
 * POST /realm/test_welcome_bot_custom_message (Zulip's
 * send_test_welcome_bot_custom_message, FL 416): an administrator sees the
 * Welcome Bot custom message a new user would get, sent to themselves.
 */
export const testWelcomeBotCustomMessage = defineContract({
  subject: "messaging.welcome-bot.test-custom-message",
  http: { method: "POST", path: "/realm/test_welcome_bot_custom_message", auth: "user" },
  params: z.object({ welcome_message_custom_text: z.string().max(WELCOME_MESSAGE_CUSTOM_TEXT_MAX_LENGTH) }),
  reply: z.strictObject({ message_id: int }),
});
