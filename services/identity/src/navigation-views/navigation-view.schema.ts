import { Schema } from "mongoose";

/** Zulip's NavigationView: one user's setting for one view of the sidebar. */
export interface NavigationViewDoc {
  realmId: number;
  userId: number;
  /** the view's URL fragment ("inbox", "narrow/is/starred", a custom narrow) */
  fragment: string;
  isPinned: boolean;
  /** null for a built-in view */
  name: string | null;
  /** from IdAllocator: the order views are listed in (Zulip lists them by id) */
  viewId: number;
}

export const navigationViewSchema = new Schema<NavigationViewDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    fragment: { type: String, required: true },
    isPinned: { type: Boolean, required: true },
    name: { type: String, default: null },
    viewId: { type: Number, required: true },
  },
  { collection: "navigationviews", versionKey: false },
);
// NavigationViewRepository.ofUser (the realmId+userId prefix) and byFragment; one view per user and fragment,
// as Zulip's unique (user, fragment)
navigationViewSchema.index({ realmId: 1, userId: 1, fragment: 1 }, { unique: true });
