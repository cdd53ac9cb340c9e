/**
 * Keeps docs/adr/README.md a true index: every record `NNNN-title.md` in docs/adr
 * is listed, every listed record exists, and every record gives the day it was
 * written on a `Date: YYYY-MM-DD` line right after its title. Pure: reads the files.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const ADR_DIR = resolve(__dirname, "../../docs/adr");
const records = readdirSync(ADR_DIR)
  .filter((name) => /^\d{4}-.+\.md$/.test(name))
  .sort();
/** the files the index's links name */
const listed = [...readFileSync(join(ADR_DIR, "README.md"), "utf8").matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1]!);

it("lists every record in the index", () => {
  expect(records.filter((name) => !listed.includes(name))).toEqual([]);
});

it("links only records that exist", () => {
  expect(listed.filter((name) => !existsSync(join(ADR_DIR, name)))).toEqual([]);
});

it("dates every record on the line after its title", () => {
  const undated = records.filter((name) => {
    const [title, blank, date] = readFileSync(join(ADR_DIR, name), "utf8").split("\n");
    return !title!.startsWith("# ") || blank !== "" || !/^Date: \d{4}-\d{2}-\d{2}$/.test(date ?? "");
  });
  expect(undated).toEqual([]);
});
