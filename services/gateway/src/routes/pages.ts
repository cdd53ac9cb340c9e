import type { FastifyInstance } from "fastify";
import { ZulipError, identity, type BusClient } from "@teamchat/shared";
import type { RequestContextOf } from "../request-context";
import { UNKNOWN_UNSUBSCRIBE_PAGE, unsubscribedPage } from "../unsubscribe-pages";

/** The HTML pages the gateway answers outside the API, without login. */
export function registerPages(app: FastifyInstance, deps: { bus: BusClient; contextOf: RequestContextOf }): void {
  const { bus, contextOf } = deps;

  /**
   * Zulip's email_unsubscribe (zerver/views/unsubscribe.py): the one-click link of a mail's
   * List-Unsubscribe header, opened in a browser or posted to by a mail client's button (RFC 8058),
   * without login; answered with Zulip's pages.
   */
  app.route({
    method: ["GET", "POST"],
    url: "/accounts/unsubscribe/:emailType/:key",
    handler: async (req, reply) => {
      const { emailType, key } = req.params as { emailType: string; key: string };
      const ctx = await contextOf(req, "none");
      let answer: string;
      try {
        answer = unsubscribedPage(
          await bus.request(identity.unsubscribeByLink, { email_type: emailType, confirmation_key: key }, ctx),
        );
      } catch (err) {
        if (!(err instanceof ZulipError && err.status === 400)) throw err;
        answer = UNKNOWN_UNSUBSCRIBE_PAGE;
      }
      return reply.type("text/html; charset=utf-8").send(answer);
    },
  });
}
