/**
 * Checks replies against Zulip's OpenAPI document (third_party/zulip-api/zulip.yaml,
 * with the operations it leaves out described in zulip-undocumented/):
 * the 200 schema of the operation at (method, path), strictly: a field the
 * document does not list fails the check, like Zulip's own test suite does.
 */
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";

type Json = Record<string, unknown>;

export const ZULIP_YAML = resolve(__dirname, "../../../../third_party/zulip-api/zulip.yaml");

/** Operations of Zulip's that zulip.yaml does not describe, one YAML file of `paths` per area (see its README). */
const UNDOCUMENTED_DIR = resolve(__dirname, "zulip-undocumented");

const parseYaml = (file: string) => parse(readFileSync(file, "utf8"), { maxAliasCount: -1 }) as Json;

/** zulip.yaml with the paths of zulip-undocumented/ added: what the tests check replies against and the fuzzer fuzzes. */
export function zulipDocument(): Json {
  const doc = parseYaml(ZULIP_YAML);
  const paths = doc.paths as Json;
  for (const file of readdirSync(UNDOCUMENTED_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    for (const [path, item] of Object.entries(parseYaml(join(UNDOCUMENTED_DIR, file)).paths as Json)) {
      if (path in paths) throw new Error(`${file}: zulip.yaml describes ${path} already`);
      paths[path] = item;
    }
  }
  return doc;
}

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  params: number;
  schema: Json | undefined;
}

let loaded: { ops: Operation[]; components: Json } | undefined;

/** Every `$ref` that is a direct part of some allOf: such schemas are extended, so they must stay open. */
function collectAllOfRefs(node: unknown, refs: Set<string>): void {
  if (Array.isArray(node)) return node.forEach((n) => collectAllOfRefs(n, refs));
  if (typeof node !== "object" || node === null) return;
  const obj = node as Json;
  if (Array.isArray(obj.allOf))
    for (const part of obj.allOf as Json[]) if (typeof part.$ref === "string") refs.add(part.$ref);
  Object.values(obj).forEach((v) => collectAllOfRefs(v, refs));
}

/** Closes every object schema that lists properties, is not an allOf part, and does not say otherwise. */
function closeObjects(node: unknown, inAllOf = false): void {
  if (Array.isArray(node)) return node.forEach((n) => closeObjects(n, inAllOf));
  if (typeof node !== "object" || node === null) return;
  const obj = node as Json;
  if (!inAllOf && obj.properties && !("additionalProperties" in obj)) obj.additionalProperties = false;
  for (const [k, v] of Object.entries(obj)) closeObjects(v, k === "allOf");
}

/** OpenAPI 3.0's `nullable` without `type` (Ajv refuses it): the same schema, or null. */
function typelessNullable(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(typelessNullable);
  if (typeof node !== "object" || node === null) return;
  const obj = node as Json;
  Object.values(obj).forEach(typelessNullable);
  if (obj.nullable !== true || "type" in obj) return;
  const { nullable: _, ...rest } = obj;
  for (const k of Object.keys(obj)) delete obj[k];
  obj.anyOf = [rest, { type: "null" }];
}

/**
 * Fields Zulip added after the document's feature level (378): channel
 * folders (FL 389) and navigation views (FL 390) appear in POST /register. Accepted here; their values are
 * asserted by the tests of the service that owns them.
 */
const NEWER_FIELDS: Record<string, string[]> = {
  "POST /register": [
    "channel_folders",
    "max_channel_folder_name_length",
    "max_channel_folder_description_length",
    "navigation_views",
    // FL 406: E2EE push registrations (POST /mobile_push/register)
    "push_devices",
    // FL 399: message reminders
    "reminders",
    // FL 468: logged-in devices (POST /register_client_device)
    "devices",
    // FL 415: the reminder note's limit
    "max_reminder_note_length",
    // FL 416: the organization's Welcome Bot custom message
    "realm_welcome_message_custom_text",
  ],
  // FL 397
  "POST /users/me/subscriptions": ["new_subscription_messages_sent"],
};

/**
 * Event types newer than the document (channel_folder, FL 389; navigation_view, FL 390; reminders,
 * FL 399; push_device, FL 406; device, FL 468): left out of GET /events replies here, asserted likewise.
 */
const NEWER_EVENT_TYPES = ["channel_folder", "navigation_view", "reminders", "push_device", "device"];

/**
 * Event fields Zulip sends that the document leaves out: `local_message_id`, in
 * the message event of the queue that sent it (Zulip's tornado/event_queue.py
 * process_message_event, for local echo).
 */
const UNDOCUMENTED_EVENT_FIELDS: Record<string, string[]> = { message: ["local_message_id"] };

/** The reply without what NEWER_FIELDS, NEWER_EVENT_TYPES and UNDOCUMENTED_EVENT_FIELDS name. */
function withoutNewer(key: string, body: unknown): unknown {
  const newer = NEWER_FIELDS[key];
  const checked = newer ? Object.fromEntries(Object.entries(body as Json).filter(([k]) => !newer.includes(k))) : body;
  if (key !== "GET /events" || !Array.isArray((checked as Json).events)) return checked;
  const events = (checked as { events: Json[] }).events
    .filter((e) => !NEWER_EVENT_TYPES.includes(e.type as string))
    .map((e) => {
      const undocumented = UNDOCUMENTED_EVENT_FIELDS[e.type as string] ?? [];
      return Object.fromEntries(Object.entries(e).filter(([k]) => !undocumented.includes(k)));
    });
  return { ...(checked as Json), events };
}

function load() {
  if (loaded) return loaded;
  const doc = zulipDocument();
  const components = doc.components as Json;
  const allOfRefs = new Set<string>();
  collectAllOfRefs(doc, allOfRefs);
  closeObjects(doc.paths);
  for (const [name, schema] of Object.entries(components.schemas as Json)) {
    closeObjects(schema, allOfRefs.has(`#/components/schemas/${name}`));
  }
  typelessNullable(doc);
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const schema = ((op as Json).responses as Json | undefined)?.["200"] as Json | undefined;
      const content = (schema?.content as Json | undefined)?.["application/json"] as Json | undefined;
      const regex = new RegExp("^" + template.replace(/\{[^}]+\}/g, "[^/]+") + "$");
      ops.push({
        method: method.toUpperCase(),
        template,
        regex,
        params: (template.match(/\{/g) ?? []).length,
        schema: content?.schema as Json | undefined,
      });
    }
  }
  ops.sort((a, b) => a.params - b.params);
  loaded = { ops, components };
  return loaded;
}

const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

export function findOperation(method: string, path: string): Operation | undefined {
  const p = path.split("?")[0]!.replace(/^\/api\/v1/, "");
  return load().ops.find((o) => o.method === method.toUpperCase() && o.regex.test(p));
}

/** Every operation the document describes, as `METHOD /template` (schemathesis names operations so). */
export function documentedOperations(): string[] {
  return load().ops.map((o) => `${o.method} ${o.template}`);
}

/** Returns the problems of a 200 reply, or [] when it matches (or the document has no such operation). */
export function checkReply(method: string, path: string, body: unknown): string[] {
  const op = findOperation(method, path);
  if (!op?.schema) return [];
  const key = `${op.method} ${op.template}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ ...op.schema, components: load().components });
    compiled.set(key, validate);
  }
  if (validate(withoutNewer(key, body))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
}

/** The top-level fields zulip.yaml documents for the 200 reply of (method, path), through allOf and $ref. */
export function documentedReplyFields(method: string, path: string): string[] {
  const { components } = load();
  const fields = new Set<string>();
  const collect = (schema: Json | undefined): void => {
    if (!schema) return;
    if (typeof schema.$ref === "string") {
      const name = schema.$ref.replace("#/components/schemas/", "");
      return collect((components.schemas as Json)[name] as Json);
    }
    for (const part of (schema.allOf as Json[] | undefined) ?? []) collect(part);
    for (const key of Object.keys((schema.properties as Json | undefined) ?? {})) fields.add(key);
  };
  collect(findOperation(method, path)?.schema);
  return [...fields];
}
