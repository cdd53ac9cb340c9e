/**
 * Zulip's message widgets (zerver/lib/widget.py, zerver/lib/validator.py): a
 * message starting `/poll` or `/todo`, or sent with a bot's `widget_content`,
 * carries the widget's data as its first submessage, and the changes readers
 * attach to it (POST /submessage) are checked by the widget's rules before
 * they are kept.
 */
import { badRequest } from "@teamchat/shared";

/** What do_widget_post_save_actions stores as the widget's submessage content. */
export interface WidgetData {
  widget_type: string;
  extra_data: unknown;
}

interface PollData {
  question: string;
  options: string[];
}

interface TodoData {
  task_list_title: string;
  tasks: Array<{ task: string; desc: string }>;
}

const WIDGET_TYPES: readonly string[] = ["poll", "todo"];

/** Python's str.splitlines: any line boundary, no empty line after a final one. */
function splitLines(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- Python counts these separators as line boundaries
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A line of the list after the first: without a list marker (`-` or `*`), empty when nothing is left. */
const listItem = (line: string): string => line.trim().replace(/^[-*]?\s*/, "");

/** The first line (the question or title) and the rest's non-empty items, as parse_poll_extra_data reads them. */
function headAndItems(content: string): { head: string; items: string[] } {
  const lines = splitLines(content);
  const head = lines.length && lines[0] ? lines.shift()!.trim() : "";
  return { head, items: lines.map(listItem).filter((item) => item.length > 0) };
}

function pollData(content: string): PollData {
  const { head, items } = headAndItems(content);
  return { question: head, options: items };
}

/** A task and its description are separated by the first `: ` (parse_todo_extra_data). */
function todoData(content: string): TodoData {
  const { head, items } = headAndItems(content);
  const tasks = items.map((item) => {
    const at = item.indexOf(": ");
    return at < 0
      ? { task: item.trim(), desc: "" }
      : { task: item.slice(0, at).trim(), desc: item.slice(at + 2).trim() };
  });
  return { task_list_title: head, tasks };
}

/** Zulip's get_widget_data: the widget a message's content starts with (`/poll`, `/todo`), or null. */
export function widgetOf(content: string): WidgetData | null {
  const first = content.split(/\s+/)[0]!;
  if (!first.startsWith("/")) return null;
  const type = first.slice(1);
  if (!WIDGET_TYPES.includes(type)) return null;
  const rest = content.replace(first, "");
  return type === "poll"
    ? { widget_type: "poll", extra_data: pollData(rest) }
    : { widget_type: "todo", extra_data: todoData(rest) };
}

/**
 * Python's json.dumps with its defaults (", " and ": " separators, non-ASCII
 * escaped), the text Zulip stores for a widget's submessage: clients that
 * compare it see the same bytes.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const fields = Object.entries(value).map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`);
    return `{${fields.join(", ")}}`;
  }
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The widget a message's first widget submessage names (Zulip's get_widget_type), or null. */
export function widgetTypeOf(submessages: ReadonlyArray<{ msgType: string; content: string }>): string | null {
  const widget = submessages.find((s) => s.msgType === "widget");
  if (!widget) return null;
  try {
    const data = JSON.parse(widget.content) as { widget_type?: unknown };
    return typeof data.widget_type === "string" ? data.widget_type : null;
  } catch {
    return null;
  }
}

// Zulip's validators, with the messages of zerver/lib/validator.py. Python's bool is an int, so a
// JSON true passes check_int as 1, as it does in Zulip.

/** Django's ValidationError: each caller turns it into its own refusal, as Zulip's views do. */
class ValidationError extends Error {}

/** `check`'s ValidationError as a 400 with its message, after `prefix`. */
function refusingWith<T>(prefix: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof ValidationError) throw badRequest(`${prefix}${err.message}`);
    throw err;
  }
}

type Check = (name: string, value: unknown) => void;

const asInt = (value: unknown): number | null =>
  typeof value === "boolean" ? Number(value) : Number.isInteger(value) ? (value as number) : null;

const checkString: Check = (name, value) => {
  if (typeof value !== "string") throw new ValidationError(`${name} is not a string`);
};

const checkInt: Check = (name, value) => {
  if (asInt(value) === null) throw new ValidationError(`${name} is not an integer`);
};

const checkBool: Check = (name, value) => {
  if (typeof value !== "boolean") throw new ValidationError(`${name} is not a boolean`);
};

const checkIntIn =
  (allowed: number[]): Check =>
  (name, value) => {
    checkInt(name, value);
    if (!allowed.includes(asInt(value)!)) throw new ValidationError(`Invalid ${name}`);
  };

const checkIntRange =
  (low: number, high: number): Check =>
  (name, value) => {
    checkInt(name, value);
    if (asInt(value)! < low) throw new ValidationError(`${name} is too small`);
    if (asInt(value)! > high) throw new ValidationError(`${name} is too large`);
  };

const isDict = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** check_dict (`only`: check_dict_only, which refuses keys it does not list). */
function checkDict(name: string, value: unknown, keys: Array<[string, Check]>, only: boolean): Record<string, unknown> {
  if (!isDict(value)) throw new ValidationError(`${name} is not a dict`);
  const dict = value;
  for (const [key, check] of keys) {
    if (!(key in dict)) throw new ValidationError(`${key} key is missing from ${name}`);
    check(`${name}["${key}"]`, dict[key]);
  }
  const unexpected = Object.keys(dict).filter((key) => !keys.some(([listed]) => listed === key));
  if (only && unexpected.length) throw new ValidationError(`Unexpected arguments: ${unexpected.join(", ")}`);
  return dict;
}

const checkDictOf =
  (keys: Array<[string, Check]>): Check =>
  (name, value) =>
    void checkDict(name, value, keys, false);

const checkList =
  (check: Check): Check =>
  (name, value) => {
    if (!Array.isArray(value)) throw new ValidationError(`${name} is not a list`);
    value.forEach((item, i) => check(`${name}[${i}]`, item));
  };

const checkEquals =
  (expected: string): Check =>
  (name, value) => {
    if (value !== expected) throw new ValidationError(`${name} != ${expected} (${String(value)} is wrong)`);
  };

/**
 * Zulip's check_widget_content, on the `widget_content` of POST /messages: the
 * only widget a sender may give that way is a zform of choices (the buttons
 * of Zulip's interactive bots). Its refusals read "Widgets: ...".
 */
export function widgetFromContent(widgetContent: string): WidgetData {
  let data: unknown;
  try {
    data = JSON.parse(widgetContent);
  } catch {
    throw badRequest("Widgets: API programmer sent invalid JSON content");
  }
  return refusingWith("Widgets: ", () => checkWidgetContent(data));
}

function checkWidgetContent(data: unknown): WidgetData {
  if (!isDict(data)) throw new ValidationError("widget_content is not a dict");
  if (!("widget_type" in data)) throw new ValidationError("widget_type is not in widget_content");
  if (!("extra_data" in data)) throw new ValidationError("extra_data is not in widget_content");
  const { widget_type, extra_data } = data;
  if (!isDict(extra_data)) throw new ValidationError("extra_data is not a dict");
  if (widget_type !== "zform") throw new ValidationError(`unknown widget type: ${String(widget_type)}`);
  if (!("type" in extra_data)) throw new ValidationError("zform is missing type field");
  if (extra_data.type !== "choices") throw new ValidationError(`unknown zform type: ${String(extra_data.type)}`);
  const choice = checkDictOf([
    ["short_name", checkString],
    ["long_name", checkString],
    ["reply", checkString],
  ]);
  const choices: Array<[string, Check]> = [
    ["type", checkEquals("choices")],
    ["heading", checkString],
    ["choices", checkList(choice)],
  ];
  checkDict("extra_data", extra_data, choices, false);
  return { widget_type, extra_data };
}

/** This should match MAX_IDX in Zulip's client widgets (validator.py). */
const MAX_IDX = 1000;

type Rule = { keys: Array<[string, Check]>; authorOnly?: string };

const POLL_RULES: Record<string, Rule> = {
  vote: {
    keys: [
      ["type", checkString],
      ["key", checkString],
      ["vote", checkIntIn([1, -1])],
    ],
  },
  question: {
    keys: [
      ["type", checkString],
      ["question", checkString],
    ],
    authorOnly: "You can't edit a question unless you are the author.",
  },
  new_option: {
    keys: [
      ["type", checkString],
      ["option", checkString],
      ["idx", checkIntRange(0, MAX_IDX)],
    ],
  },
};

const TODO_RULES: Record<string, Rule> = {
  new_task: {
    keys: [
      ["type", checkString],
      ["key", checkIntRange(0, MAX_IDX)],
      ["task", checkString],
      ["desc", checkString],
      ["completed", checkBool],
    ],
  },
  strike: {
    keys: [
      ["type", checkString],
      ["key", checkString],
    ],
  },
  new_task_list_title: {
    keys: [
      ["type", checkString],
      ["title", checkString],
    ],
    authorOnly: "You can't edit the task list title unless you are the author.",
  },
};

/**
 * Zulip's validate_poll_data and validate_todo_data: a change to a poll or a
 * todo list must be one the widget knows, with exactly its fields; only the
 * message's sender may change the question or the title. Other widgets' (and
 * widgetless messages') submessages are kept as sent.
 */
export function checkWidgetEvent(widgetType: string | null, data: unknown, isWidgetAuthor: boolean): void {
  if (widgetType !== "poll" && widgetType !== "todo") return;
  refusingWith("", () => checkEventOf(widgetType, data, isWidgetAuthor));
}

function checkEventOf(widgetType: "poll" | "todo", data: unknown, isWidgetAuthor: boolean): void {
  const [name, rules] = widgetType === "poll" ? ["poll data", POLL_RULES] : ["todo data", TODO_RULES];
  const { type } = checkDict(name, data, [["type", checkString]], false) as { type: string };
  const rule = Object.hasOwn(rules, type) ? rules[type]! : undefined;
  if (!rule) throw new ValidationError(`Unknown type for ${name}: ${type}`);
  if (rule.authorOnly && !isWidgetAuthor) throw new ValidationError(rule.authorOnly);
  checkDict(name, data, rule.keys, true);
}
