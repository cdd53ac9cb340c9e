import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

/** Zulip's Realm.REPORT_MESSAGE_REASONS: each report type and the words the report shows for it. */
export const REPORT_MESSAGE_REASONS = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  norms: "Violates community norms",
  other: "Other reason",
} as const;
export type ReportType = keyof typeof REPORT_MESSAGE_REASONS;

/** Zulip's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_MESSAGE_EXPLANATION_LENGTH = 1000;

/**
 * POST /messages/{message_id}/report (Zulip's report_message_backend, FL 382):
 * Notification Bot posts the report in the organization's moderation request
 * channel.
 */
export const reportMessage = defineContract({
  subject: "messaging.messages.report",
  http: { method: "POST", path: "/messages/{message_id}/report", auth: "user" },
  params: z.object({
    message_id: int,
    report_type: z.enum(Object.keys(REPORT_MESSAGE_REASONS) as [ReportType, ...ReportType[]]),
    description: z.string().max(MAX_REPORT_MESSAGE_EXPLANATION_LENGTH).default(""),
  }),
  reply: emptyReply,
});
