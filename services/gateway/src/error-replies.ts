import type { FastifyInstance, FastifyReply } from "fastify";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { MAX_FILE_UPLOAD_SIZE_MIB, ZulipError, badRequest } from "@teamchat/shared";

const WWW_AUTHENTICATE = 'Basic realm="zulip"';

export const notFound = () => new ZulipError("BAD_REQUEST", "Not Found", 404);

/** Every error a route throws, and every path no route takes, answered in Zulip's error shape. */
export function registerErrorReplies(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ZulipError) return sendError(reply, err);
    const { statusCode = 500, message, code } = err as Error & { statusCode?: number; code?: string };
    if (code === "FST_REQ_FILE_TOO_LARGE") {
      // Zulip's upload_file_backend refusal; the gateway stops reading a file at the largest any operation takes
      return sendError(
        reply,
        new ZulipError(
          "BAD_REQUEST",
          `File is larger than this server's configured maximum upload size (${MAX_FILE_UPLOAD_SIZE_MIB} MiB).`,
          400,
        ),
      );
    }
    // A multipart body busboy cannot read (no boundary, cut short) fails before any body is
    // attached; its errors carry no status. The client's fault, as Django's MultiPartParserError is.
    if (statusCode === 500 && req.isMultipart() && req.body == null) {
      return sendError(reply, badRequest(`Malformed multipart body: ${message}`));
    }
    if (statusCode >= 500) {
      req.log.error({ err }, "request failed");
      return sendError(reply, new ZulipError("INTERNAL_SERVER_ERROR", "Internal server error", 500));
    }
    // Fastify's own refusals: unparsable body, too large, bad content type.
    return sendError(reply, new ZulipError("BAD_REQUEST", message, statusCode));
  });
  app.setNotFoundHandler((_req, reply) => sendError(reply, notFound()));
}

/**
 * Bytes Node's HTTP parser cannot read as a request never reach a route: a bad
 * request line, oversized headers, or a body sent without its length (which
 * the parser takes for the next request). Answered as Fastify's own handler
 * does (the same statuses, then the connection closed), with Zulip's error body.
 */
export function answerMalformedRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, msg] =
    err.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "Request timed out"]
      : err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "Request headers too large"]
        : [400, "Malformed HTTP request"];
  const body = JSON.stringify({ result: "error", msg, code: "BAD_REQUEST" });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function sendError(reply: FastifyReply, err: ZulipError): FastifyReply {
  if (err.status === 401) reply.header("WWW-Authenticate", WWW_AUTHENTICATE);
  // a rate limit, or a service too busy to serve in time, says when to come back, as Zulip's rate limiter does
  const retryAfter = err.extra["retry-after"];
  if (typeof retryAfter === "number") reply.header("Retry-After", Math.ceil(retryAfter));
  return reply.status(err.status).send({ result: "error", msg: err.message, code: err.code, ...err.extra });
}
