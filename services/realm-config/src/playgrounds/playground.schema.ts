import { Schema } from "mongoose";

/** Zulip's RealmPlayground. */
export interface PlaygroundDoc {
  realmId: number;
  playgroundId: number;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

export const playgroundSchema = new Schema<PlaygroundDoc>(
  {
    realmId: { type: Number, required: true },
    playgroundId: { type: Number, required: true },
    name: { type: String, required: true },
    pygmentsLanguage: { type: String, required: true },
    urlTemplate: { type: String, required: true },
  },
  { collection: "playgrounds", versionKey: false },
);
// all (register's realm_playgrounds, by id), remove; insert: one playground per id
playgroundSchema.index({ realmId: 1, playgroundId: 1 }, { unique: true });
// insert: Zulip's unique_together (realm, pygments_language, name)
playgroundSchema.index({ realmId: 1, pygmentsLanguage: 1, name: 1 }, { unique: true });
