import { badRequest } from "@teamchat/shared";

/** Django's NON_FIELD_ERRORS key: errors of the model's clean() and unique checks. */
export const NON_FIELD = "__all__";
/** Django's message for a required text field left empty. */
export const BLANK = "This field cannot be blank.";

/**
 * Errors gathered as Django's Model.full_clean gathers them (each field's, in
 * field order, then clean()'s and the unique checks' under "__all__"), thrown
 * as Zulip's ValidationFailureError: the first message, and every one in `errors`.
 */
export class ValidationFailure {
  private readonly errors: Record<string, string[]> = {};

  add(key: string, message: string): void {
    (this.errors[key] ??= []).push(message);
  }

  has(key: string): boolean {
    return key in this.errors;
  }

  throwIfAny(): void {
    const first = Object.values(this.errors)[0];
    if (first) throw badRequest(first[0]!, { errors: this.errors });
  }
}
