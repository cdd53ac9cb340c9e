import { z } from "zod";
import { defineContract } from "../../contract";
import { int } from "../common";

export const getStreamTopics = defineContract({
  subject: "messaging.topics.list",
  http: { method: "GET", path: "/users/me/{stream_id}/topics", auth: "user" },
  params: z.object({ stream_id: int, allow_empty_topic_name: z.boolean().default(false) }),
  reply: z.object({ topics: z.array(z.object({ name: z.string(), max_id: int })) }),
});
