import type { FastifyInstance } from "fastify";
import { notFound } from "./error-replies";

/** The methods Zulip's rest_dispatch routes, HEAD aside, in the order its urls.py lists a path's methods. */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Whether the route of `method` at the route pattern `url` takes these path values (a typed one may not). */
export type AcceptsPath = (method: string, url: string, pathValues: string[]) => boolean;

/**
 * Records the methods of every route added from now on; the function returned
 * then gives every recorded path Zulip's rest_dispatch answers for the other
 * methods: OPTIONS 204 with the path's methods, sorted, in Allow; any other
 * json_method_not_allowed's 405 "Method Not Allowed" with them in Allow and in
 * `allowed_methods`, HEAD last wherever GET is. Answered before
 * authentication and the rate limit, as Zulip does. A path whose values no
 * route takes stays 404, as Zulip's URL patterns do not match it.
 */
export function answerOtherMethods(app: FastifyInstance): (accepts: AcceptsPath) => void {
  const methodsByUrl = new Map<string, Set<string>>();
  let recording = true;
  app.addHook("onRoute", (route) => {
    if (!recording) return;
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByUrl.set(route.url, methods);
  });
  return (accepts) => {
    recording = false;
    for (const [url, methods] of methodsByUrl) {
      const others = [...METHODS, "HEAD", "OPTIONS"].filter(
        (m) => !methods.has(m) && !(m === "HEAD" && methods.has("GET")),
      );
      app.route({
        method: others,
        url,
        handler: async (req, reply) => {
          const pathValues = Object.values(req.params as Record<string, string>);
          const allowed: string[] = METHODS.filter((m) => methods.has(m) && accepts(m, url, pathValues));
          if (allowed.length === 0) throw notFound();
          if (allowed.includes("GET")) allowed.push("HEAD");
          if (req.method === "OPTIONS")
            return reply
              .status(204)
              .header("Allow", [...allowed].sort().join(", "))
              .send();
          return reply
            .status(405)
            .header("Allow", allowed.join(", "))
            .send({ result: "error", msg: "Method Not Allowed", allowed_methods: allowed });
        },
      });
    }
  };
}
