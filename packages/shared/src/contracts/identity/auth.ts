import { z } from "zod";
import { actorSchema } from "../../actor";
import { defineContract } from "../../contract";

/** Internal: the gateway checks Basic credentials. */
export const authenticate = defineContract({
  subject: "identity.auth.authenticate",
  params: z.object({ email: z.string(), api_key: z.string() }),
  reply: actorSchema,
});

export const fetchApiKey = defineContract({
  subject: "identity.api_keys.fetch",
  http: {
    method: "POST",
    path: "/fetch_api_key",
    auth: "none",
    headers: { "user-agent": "user_agent" },
    clientAddress: "remote_addr",
  },
  params: z.object({
    username: z.string(),
    password: z.string(),
    /** from the User-Agent header: the new-login mail names the device by it */
    user_agent: z.string().optional(),
    /** the client's address, set by the gateway alone: the new-login mail shows it */
    remote_addr: z.string().optional(),
  }),
  reply: z.object({ api_key: z.string(), email: z.string(), user_id: z.number().int() }),
});
