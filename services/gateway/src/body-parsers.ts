import { parse as parseQuery } from "node:querystring";
import type { FastifyInstance } from "fastify";
import { badRequest, jsonNestsDeeperThan } from "@teamchat/shared";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body as text; a client that sends bytes that are not UTF-8 gets a clear 400, not replacement characters. */
function text(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw badRequest("Invalid UTF-8 in the request");
  }
}

/** Percent-decoding that refuses escapes which do not form UTF-8 (`%FF`) instead of replacing them. */
function strictUnescape(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    throw badRequest("Invalid UTF-8 in the request");
  }
}

/** A query string or form body: repeated names give lists, as Node's querystring does. */
export const parseForm = (s: string): Record<string, unknown> =>
  parseQuery(s, "&", "=", { decodeURIComponent: strictUnescape, maxKeys: 0 });

/**
 * Zulip's two request encodings, strictly: form bodies (what every Zulip client
 * sends) and JSON bodies, as UTF-8 only, and JSON no deeper than `maxJsonDepth`
 * (deeper input would exhaust the stack validating or re-encoding it).
 */
export function registerBodyParsers(app: FastifyInstance, maxJsonDepth: number): void {
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "buffer" }, (_req, body, done) => {
    try {
      done(null, parseForm(text(body as Buffer)));
    } catch (err) {
      done(err as Error);
    }
  });
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => {
    try {
      const json = text(body as Buffer);
      if (jsonNestsDeeperThan(json, maxJsonDepth))
        throw badRequest(`The request nests deeper than ${maxJsonDepth} levels`);
      done(null, json === "" ? {} : JSON.parse(json));
    } catch (err) {
      done(err instanceof SyntaxError ? badRequest("Malformed JSON") : (err as Error));
    }
  });
}
