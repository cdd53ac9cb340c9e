import { z } from "zod";
import { ZulipError, badRequest, missingArgument } from "./errors";

/**
 * Zulip's request encoding: a string parameter arrives as-is; every other type
 * (integers, booleans, lists, objects, null) arrives as JSON text in the field.
 * A parameter typed "string or something else" (e.g. `anchor`, `to`) is JSON
 * when it parses and the raw string otherwise.
 */
type Kind = "raw" | "json" | "json-or-raw";

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, unknown>;
  values?: unknown[];
}
const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

export function paramKind(schema: z.ZodType): Kind {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return paramKind(def.innerType!);
    case "pipe":
      return paramKind(def.in!);
    case "string":
      return "raw";
    case "enum":
      return Object.values(def.entries ?? {}).every((v) => typeof v === "string") ? "raw" : "json";
    case "literal":
      return (def.values ?? []).every((v) => typeof v === "string") ? "raw" : "json";
    case "union":
      return (def.options ?? []).some((o) => paramKind(o) !== "json") ? "json-or-raw" : "json";
    default:
      return "json";
  }
}

const kindCache = new WeakMap<z.ZodObject, Map<string, Kind>>();
function kindsOf(schema: z.ZodObject<z.ZodRawShape>): Map<string, Kind> {
  let kinds = kindCache.get(schema);
  if (!kinds) {
    kinds = new Map(Object.entries(schema.shape).map(([k, v]) => [k, paramKind(v as z.ZodType)]));
    kindCache.set(schema, kinds);
  }
  return kinds;
}

export interface DecodedParams {
  params: Record<string, unknown>;
  /** Parameters the operation does not know, sorted (Zulip's ignored_parameters_unsupported). */
  ignored: string[];
}

/** Turns raw HTTP fields (all strings) into typed values according to the operation's schema. */
/**
 * Whether JSON text nests arrays and objects deeper than `limit` (brackets in
 * strings do not count), found without parsing it.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export function decodeParams(
  schema: z.ZodObject<z.ZodRawShape>,
  raw: Record<string, unknown>,
  /** how deeply a JSON parameter may nest (config JSON_DEPTH_LIMIT) */
  maxJsonDepth: number,
): DecodedParams {
  const kinds = kindsOf(schema);
  const params: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const kind = kinds.get(name);
    if (!kind) {
      ignored.push(name);
      continue;
    }
    if (typeof value !== "string" || kind === "raw") {
      params[name] = value;
      continue;
    }
    if (jsonNestsDeeperThan(value, maxJsonDepth)) throw badRequest(`${name} nests deeper than ${maxJsonDepth} levels`);
    try {
      params[name] = JSON.parse(value);
    } catch {
      if (kind === "json") throw badRequest(`${name} is not valid JSON`);
      params[name] = value;
    }
  }
  return { params, ignored: ignored.sort() };
}

const varName = (path: PropertyKey[]): string =>
  String(path[0]) +
  path
    .slice(1)
    .map((p) => `[${JSON.stringify(p)}]`)
    .join("");

const typeNames: Record<string, string> = {
  number: "an integer",
  int: "an integer",
  boolean: "a boolean",
  string: "a string",
  array: "a list",
  object: "a dict",
  record: "a dict",
};

/** Zulip's wording (zerver/lib/typed_endpoint.py ERROR_TEMPLATES) for a zod issue. */
export function issueToZulipError(issue: z.core.$ZodIssue, input: Record<string, unknown>): ZulipError {
  const name = varName(issue.path);
  // an absent required parameter, whatever its type (enums report invalid_value)
  if (issue.code !== "custom" && issue.path.length === 1 && input[String(issue.path[0])] === undefined) {
    return missingArgument(name);
  }
  switch (issue.code) {
    case "invalid_type":
      if (issue.expected in typeNames) return badRequest(`${name} is not ${typeNames[issue.expected]}`);
      return badRequest(`Invalid ${name}`);
    case "too_big":
      if (issue.origin === "string") return badRequest(`${name} is too long (limit: ${issue.maximum} characters)`);
      return badRequest(`${name} is too large`);
    case "too_small":
      if (issue.origin === "string") {
        return badRequest(issue.minimum === 1 ? `${name} cannot be blank` : `${name} is too short.`);
      }
      return badRequest(`${name} is too small`);
    case "unrecognized_keys":
      return badRequest(`Argument "${issue.keys[0]}" at ${name} is unexpected`);
    case "custom":
      return badRequest(issue.message);
    default:
      return badRequest(`Invalid ${name}`);
  }
}

/** Validates decoded parameters; the first problem becomes Zulip's error (as Zulip reports only the first). */
export function parseParams<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw issueToZulipError(result.error.issues[0]!, input);
}
