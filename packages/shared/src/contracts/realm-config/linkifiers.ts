import { z } from "zod";
import { defineContract } from "../../contract";
import { int, intList } from "../common";

/** Zulip's LinkifierDict (zulip.yaml: GET /realm/linkifiers' items, register's realm_linkifiers). */
export const realmLinkifierSchema = z.strictObject({ pattern: z.string(), url_template: z.string(), id: int });
export type RealmLinkifier = z.infer<typeof realmLinkifierSchema>;

/** Zulip's RealmPlaygroundDict (zulip.yaml components/schemas/RealmPlayground). */
export const realmPlaygroundSchema = z.strictObject({
  id: int,
  name: z.string(),
  pygments_language: z.string(),
  url_template: z.string(),
});
export type RealmPlayground = z.infer<typeof realmPlaygroundSchema>;

/** GET /realm/linkifiers (Zulip's list_linkifiers), in processing order; messaging loads its cache with it. */
export const listLinkifiers = defineContract({
  subject: "realm-config.linkifiers.list",
  http: { method: "GET", path: "/realm/linkifiers", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ linkifiers: z.array(realmLinkifierSchema) }),
});

/**
 * GET /realm/filters: the endpoint Zulip had before feature level 54 (zulip-js'
 * filters.retrieve calls it), each linkifier a [pattern, url_template, id]
 * tuple; the second element is the URL template that replaced the format string.
 */
export const listLegacyFilters = defineContract({
  subject: "realm-config.linkifiers.list_legacy",
  http: { method: "GET", path: "/realm/filters", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ filters: z.array(z.tuple([z.string(), z.string(), int])) }),
});

/** POST /realm/filters (Zulip's create_linkifier). */
export const createLinkifier = defineContract({
  subject: "realm-config.linkifiers.create",
  http: { method: "POST", path: "/realm/filters", auth: "user" },
  params: z.object({ pattern: z.string(), url_template: z.string() }),
  reply: z.strictObject({ id: int }),
});

/** PATCH /realm/filters/{filter_id} (Zulip's update_linkifier): both fields are replaced. */
export const updateLinkifier = defineContract({
  subject: "realm-config.linkifiers.update",
  http: { method: "PATCH", path: "/realm/filters/{filter_id}", auth: "user" },
  params: z.object({ filter_id: int, pattern: z.string(), url_template: z.string() }),
  reply: z.strictObject({}),
});

/** DELETE /realm/filters/{filter_id} (Zulip's delete_linkifier). */
export const deleteLinkifier = defineContract({
  subject: "realm-config.linkifiers.delete",
  http: { method: "DELETE", path: "/realm/filters/{filter_id}", auth: "user" },
  params: z.object({ filter_id: int }),
  reply: z.strictObject({}),
});

/** PATCH /realm/linkifiers (Zulip's reorder_linkifiers): every linkifier's id, in the new order. */
export const reorderLinkifiers = defineContract({
  subject: "realm-config.linkifiers.reorder",
  http: { method: "PATCH", path: "/realm/linkifiers", auth: "user" },
  params: z.object({ ordered_linkifier_ids: intList }),
  reply: z.strictObject({}),
});

/** POST /realm/playgrounds (Zulip's add_realm_playground). */
export const createPlayground = defineContract({
  subject: "realm-config.playgrounds.create",
  http: { method: "POST", path: "/realm/playgrounds", auth: "user" },
  params: z.object({ name: z.string(), pygments_language: z.string(), url_template: z.string() }),
  reply: z.strictObject({ id: int }),
});

/** DELETE /realm/playgrounds/{playground_id} (Zulip's delete_realm_playground). */
export const deletePlayground = defineContract({
  subject: "realm-config.playgrounds.delete",
  http: { method: "DELETE", path: "/realm/playgrounds/{playground_id}", auth: "user" },
  params: z.object({ playground_id: int }),
  reply: z.strictObject({}),
});
