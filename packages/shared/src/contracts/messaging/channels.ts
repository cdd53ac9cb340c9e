import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";
import { channelCreationParams, looseObject } from "./channel-params";

export const createChannel = defineContract({
  subject: "messaging.channels.create",
  http: { method: "POST", path: "/channels/create", auth: "user" },
  params: z.object({
    name: z.string(),
    description: z.string().default(""),
    subscribers: intList,
    folder_id: int.optional(),
    ...channelCreationParams,
  }),
  reply: z.object({ id: int }),
});

export const getStreams = defineContract({
  subject: "messaging.channels.list",
  http: { method: "GET", path: "/streams", auth: "user" },
  params: z.object({
    include_public: z.boolean().default(true),
    include_web_public: z.boolean().default(false),
    include_subscribed: z.boolean().default(true),
    exclude_archived: z.boolean().default(true),
    include_all_active: z.boolean().default(false),
    include_all: z.boolean().default(false),
    include_default: z.boolean().default(false),
    include_owner_subscribed: z.boolean().default(false),
    include_can_access_content: z.boolean().default(false),
  }),
  reply: z.object({ streams: z.array(looseObject) }),
});

export const getStreamById = defineContract({
  subject: "messaging.channels.get",
  http: { method: "GET", path: "/streams/{stream_id}", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: z.object({ stream: looseObject }),
});
