/**
 * Keeps docs/architecture.md true: every synchronous bus request in
 * services/<service>/src and packages/shared/src (bus.request, bus.requestJson)
 * is one its caller may make. A service may call the services its row of the
 * doc's table names, or a contract the doc lists as a known exception. Code in
 * packages/shared counts for every service that imports the declaration the
 * request is in. Pure: reads the sources, starts nothing.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import * as shared from "@teamchat/shared";

const ROOT = resolve(__dirname, "../..");
const SHARED_SRC = join(ROOT, "packages/shared/src");
const SERVICES = ["gateway", "identity", "messaging", "notifications", "realm-config"] as const;
type Service = (typeof SERVICES)[number];
const isService = (s: string): s is Service => (SERVICES as readonly string[]).includes(s);

/** The doc's rules: whom each service may call, and the contracts it may call besides (known exceptions). */
function readRules(): { allowed: Map<Service, Set<Service>>; exceptions: Map<Service, Set<string>> } {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const rows = (heading: string) => {
    const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
    if (!section) throw new Error(`docs/architecture.md has no section "## ${heading}"`);
    return section
      .split("\n")
      .filter((line) => /^\|\s*[a-z-]+\s*\|/.test(line))
      .map((line) =>
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim().replaceAll("`", "")),
      )
      .filter(([caller]) => isService(caller!)) as Array<[Service, ...string[]]>;
  };
  const allowed = new Map<Service, Set<Service>>();
  for (const [caller, callees] of rows("Who may call whom")) {
    allowed.set(
      caller,
      new Set(
        callees!
          .split(",")
          .map((s) => s.trim())
          .filter(isService),
      ),
    );
  }
  const exceptions = new Map<Service, Set<string>>();
  for (const [caller, contract] of rows("Known exceptions")) {
    exceptions.set(caller, new Set([...(exceptions.get(caller) ?? []), contract!]));
  }
  return { allowed, exceptions };
}

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? tsFiles(join(dir, e.name))
      : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);

function visit(node: ts.Node, f: (n: ts.Node) => void): void {
  f(node);
  node.forEachChild((child) => visit(child, f));
}

/** The module an identifier of the file is imported from, or undefined. */
function importOf(source: ts.SourceFile, name: string): string | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause?.namedBindings) continue;
    const bindings = statement.importClause.namedBindings;
    if (ts.isNamedImports(bindings) && bindings.elements.some((e) => e.name.text === name)) {
      return (statement.moduleSpecifier as ts.StringLiteral).text;
    }
  }
  return undefined;
}

interface Contract {
  subject: string;
}
const isContract = (v: unknown): v is Contract => typeof (v as Contract | undefined)?.subject === "string";

/** The value an identifier of the file names at run time, when it is imported (from @teamchat/shared or a shared module). */
function importedValue(source: ts.SourceFile, name: string): unknown {
  const from = importOf(source, name);
  if (from === "@teamchat/shared") return (shared as Record<string, unknown>)[name];
  if (from?.startsWith(".") && source.fileName.startsWith(SHARED_SRC)) {
    return jest.requireActual<Record<string, unknown>>(resolve(dirname(source.fileName), from))[name];
  }
  return undefined;
}

/**
 * The contracts a request's first argument names: `ns.contract` (a namespace
 * of @teamchat/shared), an imported contract, or the parameter of
 * `CONTRACTS.map((c) => ...)` over an imported list. Null when it cannot be told.
 */
function contractsOf(source: ts.SourceFile, arg: ts.Expression): Array<{ name: string; contract: Contract }> | null {
  if (ts.isPropertyAccessExpression(arg) && ts.isIdentifier(arg.expression)) {
    const ns = importedValue(source, arg.expression.text) as Record<string, unknown> | undefined;
    const contract = ns?.[arg.name.text];
    return isContract(contract) ? [{ name: arg.getText(), contract }] : null;
  }
  if (!ts.isIdentifier(arg)) return null;
  let value = importedValue(source, arg.text);
  let listName = arg.text;
  if (value === undefined) {
    // the parameter of an arrow function passed to LIST.map
    let node: ts.Node | undefined = arg;
    while (node && !(ts.isArrowFunction(node) && node.parameters.some((p) => p.name.getText() === arg.text))) {
      node = node.parent;
    }
    const call = node?.parent;
    if (call && ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression)) {
      const list = call.expression.expression;
      if (ts.isIdentifier(list)) {
        value = importedValue(source, list.text);
        listName = list.text;
      }
    }
  }
  if (isContract(value)) return [{ name: listName, contract: value }];
  if (!Array.isArray(value) || !value.length || !value.every(isContract)) return null;
  return value.map((contract) => ({ name: `${listName}(${contract.subject})`, contract }));
}

/** The names a top-level statement declares. */
const declaredNames = (statement: ts.Statement): string[] => {
  if ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement)) && statement.name) {
    return [statement.name.text];
  }
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.map((d) => d.name.getText());
  return [];
};

interface BusRequest {
  where: string;
  /** the services making it */
  callers: Service[];
  contracts: Array<{ name: string; contract: Contract }> | null;
}

/** Which services import each name from @teamchat/shared. */
function sharedImporters(): Map<string, Set<Service>> {
  const importers = new Map<string, Set<Service>>();
  for (const service of SERVICES) {
    for (const file of tsFiles(join(ROOT, "services", service, "src"))) {
      for (const statement of parse(file).statements) {
        if (!ts.isImportDeclaration(statement)) continue;
        if ((statement.moduleSpecifier as ts.StringLiteral).text !== "@teamchat/shared") continue;
        const bindings = statement.importClause?.namedBindings;
        if (!bindings || !ts.isNamedImports(bindings)) continue;
        for (const e of bindings.elements)
          importers.set(e.name.text, (importers.get(e.name.text) ?? new Set()).add(service));
      }
    }
  }
  return importers;
}

function busRequests(): BusRequest[] {
  const importers = sharedImporters();
  const files = [
    ...SERVICES.flatMap((service) =>
      tsFiles(join(ROOT, "services", service, "src")).map((file) => ({ file, service })),
    ),
    ...tsFiles(SHARED_SRC)
      .filter((file) => !file.includes("/testing/"))
      .map((file) => ({ file, service: null })),
  ];
  const found: BusRequest[] = [];
  for (const { file, service } of files) {
    const source = parse(file);
    visit(source, (node) => {
      if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
      const { name, expression: target } = node.expression;
      if (name.text !== "request" && name.text !== "requestJson") return;
      const onBus = ts.isIdentifier(target) ? target.text === "bus" : target.getText().endsWith(".bus");
      if (!onBus || !node.arguments[0]) return;
      let top: ts.Node = node;
      while (top.parent !== source) top = top.parent;
      const callers = service
        ? [service]
        : [...new Set(declaredNames(top as ts.Statement).flatMap((n) => [...(importers.get(n) ?? [])]))];
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push({
        where: `${relative(ROOT, file)}:${line}`,
        callers,
        contracts: contractsOf(source, node.arguments[0]),
      });
    });
  }
  return found;
}

const { allowed, exceptions } = readRules();
const requests = busRequests();

test("the doc's table is a layering: every service is in it and no two services may call each other", () => {
  expect([...allowed.keys()].sort()).toEqual([...SERVICES].sort());
  // a strict order: the services each may call form no cycle
  const reaches = (from: Service, to: Service, seen = new Set<Service>()): boolean =>
    [...(allowed.get(from) ?? [])].some(
      (next) => next === to || (!seen.has(next) && reaches(next, to, seen.add(next))),
    );
  expect(SERVICES.filter((s) => reaches(s, s))).toEqual([]);
});

test("every synchronous bus request is one docs/architecture.md allows", () => {
  // the scan finds requests at all (a changed call shape would otherwise pass silently)
  expect(requests.length).toBeGreaterThan(20);
  const refused: string[] = [];
  for (const { where, callers, contracts } of requests) {
    for (const caller of callers) {
      const mayCallAll = SERVICES.every((s) => s === caller || allowed.get(caller)!.has(s));
      if (contracts === null) {
        if (!mayCallAll) refused.push(`${where}: ${caller} requests a contract this check cannot tell`);
        continue;
      }
      for (const { name, contract } of contracts) {
        const callee = contract.subject.split(".")[0]!;
        const ok =
          callee === caller || allowed.get(caller)!.has(callee as Service) || exceptions.get(caller)?.has(name);
        if (!ok) refused.push(`${where}: ${caller} calls ${callee} (${name})`);
      }
    }
  }
  expect(refused).toEqual([]);
});

test("every known exception the doc lists is still made", () => {
  const made = new Set(
    requests.flatMap(({ callers, contracts }) =>
      callers.flatMap((c) => (contracts ?? []).map((k) => `${c} ${k.name}`)),
    ),
  );
  const listed = [...exceptions].flatMap(([caller, names]) => [...names].map((n) => `${caller} ${n}`));
  expect(listed.filter((e) => !made.has(e))).toEqual([]);
});
