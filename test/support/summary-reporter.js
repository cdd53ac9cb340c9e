/** Prints the plain closing line "N passed, N failed, N skipped" that CI reads. */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(
      `\n${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
