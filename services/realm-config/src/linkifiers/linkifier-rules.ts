import { badRequest, compilePattern, PatternError, uriTemplateVariables, type ZulipError } from "@teamchat/shared";
import { BLANK, NON_FIELD, ValidationFailure } from "../validation-failure";
import type { LinkifierDoc } from "./linkifier.schema";

/** Django's unique_together message for (realm, pattern). */
const PATTERN_TAKEN = "Realm filter with this Realm and Pattern already exists.";

/** The unique index's refusal, for a pattern another request saved meanwhile. */
export const patternTaken = (): ZulipError => badRequest(PATTERN_TAKEN, { errors: { [NON_FIELD]: [PATTERN_TAKEN] } });

/** Python's repr() of a group name, as Zulip's %(name)r puts it in messages. */
const repr = (name: string) => `'${name}'`;

/**
 * Zulip's RealmFilter.full_clean for a linkifier about to be saved (pattern and
 * template already stripped): blank fields, the template's RFC 6570 syntax, the
 * pattern (here: that it runs as a JavaScript RegExp, see domain/linkifiers.ts),
 * that the template uses exactly the pattern's named groups, and the pattern
 * unique in the organization (`others`: the organization's other linkifiers).
 */
export function checkLinkifier(pattern: string, urlTemplate: string, others: LinkifierDoc[]): void {
  const failure = new ValidationFailure();
  if (!pattern) failure.add("pattern", BLANK);
  const variables = uriTemplateVariables(urlTemplate);
  if (!urlTemplate) failure.add("url_template", BLANK);
  else if (!variables) failure.add("url_template", "Invalid URL template.");
  let groups: string[] | null = null;
  try {
    groups = compilePattern(pattern).groups;
  } catch (err) {
    if (!(err instanceof PatternError)) throw err;
    failure.add(NON_FIELD, `Bad regular expression: ${err.message}`);
  }
  if (groups && variables) {
    const missingInPattern = [...variables].filter((v) => !groups.includes(v)).sort();
    const missingInTemplate = groups.filter((g) => !variables.has(g)).sort();
    if (missingInPattern.length) {
      failure.add(
        NON_FIELD,
        `Group ${repr(missingInPattern[0]!)} in URL template is not present in linkifier pattern.`,
      );
    } else if (missingInTemplate.length) {
      failure.add(
        NON_FIELD,
        `Group ${repr(missingInTemplate[0]!)} in linkifier pattern is not present in URL template.`,
      );
    }
  }
  // Django checks uniqueness only for fields without errors of their own
  if (!failure.has("pattern") && others.some((l) => l.pattern === pattern)) {
    failure.add(NON_FIELD, PATTERN_TAKEN);
  }
  failure.throwIfAny();
}
