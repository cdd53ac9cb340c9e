import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  ZulipError,
  identity,
  messaging,
  missingArgument,
  realmConfig,
  type BusClient,
  type CallContext,
  type Contract,
  type StoredFileLocation,
} from "@teamchat/shared";
import { camoPath } from "../external-content";
import { contentDisposition, sendStoredFile } from "../files";
import type { RequestContextOf } from "../request-context";

/**
 * Files outside /api/v1, as Zulip serves them to browsers: uploads, avatars
 * and custom emoji images, the avatar redirects and /thumbnail. None is
 * counted against the API rate limit: a page of images would use it up.
 */
export function registerFileRoutes(
  app: FastifyInstance,
  deps: { bus: BusClient; contextOf: RequestContextOf; proxyKey: string },
): void {
  const { bus, contextOf, proxyKey } = deps;

  // Zulip's serve_file_backend: the file itself, outside /api/v1, with the API's Basic auth
  app.get("/user_uploads/:realmIdStr/*", async (req, reply) => {
    const { realmIdStr, "*": rest } = req.params as { realmIdStr: string; "*": string };
    const ctx = await contextOf(req, "optional");
    return serveFile(
      reply,
      bus,
      ctx,
      () => bus.request(messaging.openUpload, { path_id: `${realmIdStr}/${rest}` }, ctx),
      messaging.uploadFiles.readChunk,
      uploadHeaders,
    );
  });

  // Zulip's serve_local_file_unauthed: a URL from GET /api/v1/user_uploads/..., without credentials
  app.get("/user_uploads/temporary/:token/:filename", async (req, reply) => {
    const { token, filename } = req.params as { token: string; filename: string };
    const ctx = await contextOf(req, "none");
    return serveFile(
      reply,
      bus,
      ctx,
      () => bus.request(messaging.openTemporaryUpload, { token, filename }, ctx),
      messaging.uploadFiles.readChunk,
      uploadHeaders,
    );
  });

  /**
   * Files served to anyone under /user_avatars/, as Zulip's local upload backend serves them: a
   * file's name changes with its content, so a name's file never changes.
   */
  const servePublicFile = (
    path: string,
    open: typeof realmConfig.openEmojiImage | typeof identity.openAvatar,
    readChunk: typeof realmConfig.emojiFiles.readChunk,
  ) =>
    app.get(path, async (req, reply) => {
      const { realmId, fileName } = req.params as { realmId: string; fileName: string };
      const ctx = await contextOf(req, "none");
      return serveFile(
        reply,
        bus,
        ctx,
        () => bus.request(open, { realm_id: realmId, file_name: fileName }, ctx),
        readChunk,
        () => ({ "cache-control": "public, max-age=31536000, immutable" }),
      );
    });
  // custom emoji images
  servePublicFile(
    "/user_avatars/:realmId/emoji/images/:fileName",
    realmConfig.openEmojiImage,
    realmConfig.emojiFiles.readChunk,
  );
  // uploaded avatars' images
  servePublicFile("/user_avatars/:realmId/:fileName", identity.openAvatar, identity.avatarFiles.readChunk);

  /**
   * Zulip's avatar view (GET /avatar/{email_or_id}, and /medium): a redirect to
   * the user's avatar, the request's query string kept, with the API's
   * credentials; this server has no spectators, so they are required.
   */
  const redirectToAvatar = (medium: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const { emailOrId } = req.params as { emailOrId: string };
    const ctx = await contextOf(req, "required");
    const { url } = await bus.request(identity.findAvatar, { email_or_id: emailOrId, medium }, ctx);
    const query = req.url.split("?")[1] ?? "";
    return reply.redirect(query ? `${url}${url.includes("?") ? "&" : "?"}${query}` : url);
  };
  app.get("/avatar/:emailOrId", redirectToAvatar(false));
  app.get("/avatar/:emailOrId/medium", redirectToAvatar(true));

  /**
   * Zulip's backend_serve_thumbnail as it was while Zulip proxied outside images
   * (zerver/views/thumbnail.py, zerver/lib/thumbnail.py generate_thumbnail_url):
   * a path on this server is redirected to itself, an uploaded file's only if
   * the user may see it, any other URL to the signed proxy path. Credentials are
   * the API's, as this server has no browser sessions; `size` is required and
   * not used, as in Zulip.
   */
  app.get("/thumbnail", async (req, reply) => {
    const ctx = await contextOf(req, "required");
    const query = req.query as Record<string, unknown>;
    const [url, size] = ["url", "size"].map((name) => [query[name]].flat().at(-1));
    if (typeof url !== "string") throw missingArgument("url");
    if (typeof size !== "string") throw missingArgument("size");
    // Django's urljoin("/", url) and url_has_allowed_host_and_scheme: only a URL without scheme or host stays here
    const base = new URL("http://thumbnail.invalid/");
    const resolved = URL.canParse(url, base.href) ? new URL(url, base) : undefined;
    if (resolved?.origin !== base.origin || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
      return reply.redirect(camoPath(proxyKey, url));
    }
    if (url.startsWith("user_uploads/")) {
      try {
        await bus.request(messaging.openUpload, { path_id: url.slice("user_uploads/".length) }, ctx);
      } catch (err) {
        if (!(err instanceof ZulipError && (err.status === 404 || err.status === 403))) throw err;
        return reply
          .status(403)
          .type("text/html; charset=utf-8")
          .send("<p>You are not authorized to view this file.</p>");
      }
    }
    // one leading slash: `//host` would send the browser to another host
    return reply.redirect(`${resolved.pathname.replace(/^\/+/, "/")}${resolved.search}${resolved.hash}`);
  });
}

/**
 * A stored file as a browser gets it: Zulip answers "not found" and "not
 * authorized" with HTML, as a page shows them.
 */
async function serveFile<L extends StoredFileLocation>(
  reply: FastifyReply,
  bus: BusClient,
  ctx: CallContext,
  open: () => Promise<L>,
  readChunk: Contract,
  headers: (location: L) => Record<string, string>,
): Promise<FastifyReply> {
  let location;
  try {
    location = await open();
  } catch (err) {
    if (err instanceof ZulipError && (err.status === 404 || err.status === 403)) {
      return reply.status(err.status).type("text/html; charset=utf-8").send(`<p>${err.message}</p>`);
    }
    throw err;
  }
  reply.headers(headers(location));
  return sendStoredFile(reply, bus, readChunk, location, ctx);
}

const uploadHeaders = (location: StoredFileLocation & { filename: string }) => ({
  "content-disposition": contentDisposition(location.filename, location.content_type),
  "cache-control": "private, immutable",
});
