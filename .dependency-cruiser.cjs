/**
 * `npm run check:cycles` (part of `npm test`): no import cycle anywhere in the
 * repository, type-only imports included (tsPreCompilationDeps), so a module's
 * collaborators are always below it and the composition roots stay at the top.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "This import closes a cycle: move what both sides need into a module of its own.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|coverage|\\.data)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: true,
  },
};
