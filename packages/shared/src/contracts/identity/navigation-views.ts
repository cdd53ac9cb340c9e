import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";

/**
 * Zulip's NavigationView (FL 390): a user's setting for one view of the web
 * app's left sidebar, named by its URL fragment; `name` is null for the
 * built-in views (BUILT_IN_NAVIGATION_VIEWS) and set for custom ones.
 */
export const navigationViewSchema = z.strictObject({
  fragment: z.string(),
  is_pinned: z.boolean(),
  name: z.string().nullable(),
});
export type NavigationView = z.infer<typeof navigationViewSchema>;

/** Zulip's BUILT_IN_VIEW_FRAGMENTS: views the web app has whatever the user sets; they take no name. */
export const BUILT_IN_NAVIGATION_VIEWS: readonly string[] = [
  "inbox",
  "recent",
  "feed",
  "drafts",
  "narrow/has/reaction/sender/me",
  "narrow/is/mentioned",
  "narrow/is/starred",
  "scheduled",
];

/** Zulip's StringConstraints(strip_whitespace=True, min_length=1): "fragment cannot be blank". */
const nonBlank = z.string().trim().min(1);

/** GET /navigation_views: the caller's views, oldest first. */
export const listNavigationViews = defineContract({
  subject: "identity.navigation_views.list",
  http: { method: "GET", path: "/navigation_views", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ navigation_views: z.array(navigationViewSchema) }),
});

/** POST /navigation_views (Zulip's add_navigation_view): a built-in view's setting, or a custom view with its name. */
export const addNavigationView = defineContract({
  subject: "identity.navigation_views.add",
  http: { method: "POST", path: "/navigation_views", auth: "user" },
  params: z.object({ fragment: nonBlank, is_pinned: z.boolean(), name: nonBlank.optional() }),
  reply: emptyReply,
});

/**
 * A fragment in the path: the rest of the path, slashes included, as Zulip's
 * `navigation_views/<path:fragment>` takes it (`narrow/is/alerted` raw or
 * URL-encoded), stripped and checked by the handler, since a path value the
 * schema refuses would make the route not match (404) rather than Zulip's
 * "fragment cannot be blank".
 */
const pathFragment = z.string();

/** PATCH /navigation_views/{fragment}: pins or unpins a view, or renames a custom one. */
export const updateNavigationView = defineContract({
  subject: "identity.navigation_views.update",
  http: { method: "PATCH", path: "/navigation_views/{fragment}", auth: "user", restOfPath: true },
  params: z.object({ fragment: pathFragment, is_pinned: z.boolean().optional(), name: nonBlank.optional() }),
  reply: emptyReply,
});

/** DELETE /navigation_views/{fragment}. */
export const removeNavigationView = defineContract({
  subject: "identity.navigation_views.remove",
  http: { method: "DELETE", path: "/navigation_views/{fragment}", auth: "user", restOfPath: true },
  params: z.object({ fragment: pathFragment }),
  reply: emptyReply,
});
