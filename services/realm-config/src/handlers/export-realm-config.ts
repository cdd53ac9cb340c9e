import type { Handler, realmConfig } from "@teamchat/shared";
import type { RealmEmojiRepository } from "../emoji/realm-emoji.repository";
import type { LinkifierRepository } from "../linkifiers/linkifier.repository";
import type { ProfileFieldRepository } from "../profile-fields/profile-field.repository";
import type { RealmRecordRepository } from "../realms/realm.repository";

/** Internal (realm export): the organization, its custom profile fields, emoji and linkifiers as Zulip's rows. */
export const exportRealmConfigHandler =
  (deps: {
    realms: RealmRecordRepository;
    fields: ProfileFieldRepository;
    emoji: RealmEmojiRepository;
    linkifiers: LinkifierRepository;
  }): Handler<typeof realmConfig.exportRealmConfig> =>
  async (_p, ctx) => {
    const realmId = ctx.realm!.id;
    const [realm, fields, emoji, linkifiers] = await Promise.all([
      deps.realms.byId(realmId),
      deps.fields.inOrder(realmId),
      deps.emoji.all(realmId),
      deps.linkifiers.inOrder(realmId),
    ]);
    if (!realm) throw new Error(`no organization ${realmId}`);
    return {
      zerver_realm: [
        {
          ...realm.settings,
          id: realm.realmId,
          string_id: realm.subdomain,
          name: realm.name,
          description: realm.description,
          date_created: realm.dateCreated.getTime() / 1000,
        },
      ],
      zerver_customprofilefield: fields.map((f) => ({
        id: f.fieldId,
        realm: realmId,
        name: f.name,
        hint: f.hint,
        field_type: f.fieldType,
        field_data: f.fieldData,
        order: f.order,
        display_in_profile_summary: f.displayInProfileSummary,
        required: f.required,
        editable_by_user: f.editableByUser,
      })),
      zerver_realmemoji: emoji.map((e) => ({
        id: e.emojiId,
        realm: realmId,
        name: e.name,
        file_name: e.fileName,
        author: e.authorId,
        deactivated: e.deactivated,
        is_animated: false,
      })),
      zerver_realmfilter: linkifiers.map((l) => ({
        id: l.linkifierId,
        realm: realmId,
        pattern: l.pattern,
        url_template: l.urlTemplate,
        order: l.order,
      })),
    };
  };
