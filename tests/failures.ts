/**
 * Prints the failed tests of a `bun test --reporter=junit` file with their errors, then exits 1. `npm test` calls it
 * when a pass fails, so the end of a long log (often all a CI summary keeps) says why, not only which test.
 */
import { XMLParser } from 'fast-xml-parser';

interface Failure {
  file: string;
  name: string;
  error: string;
}

/** The failed test cases of a JUnit report, in order, each with its file and the error bun recorded. */
export function failuresOf(junit: string): Failure[] {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    textNodeName: 'text',
    htmlEntities: true, // bun writes the error's line breaks as &#10;
    isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name),
  });
  const failures: Failure[] = [];
  // bun nests a file's describe blocks as testsuites inside the file's own; their names make the test's path.
  const walk = (suite: any, file: string, path: string[]) => {
    for (const test of suite.testcase ?? [])
      for (const failure of test.failure ?? [])
        failures.push({ file, name: [...path, test.name].join(' > '), error: String(failure.text ?? failure.message ?? '') });
    for (const inner of suite.testsuite ?? []) walk(inner, file, [...path, inner.name]);
  };
  for (const file of parser.parse(junit).testsuites?.testsuite ?? []) walk(file, file.file, []);
  return failures;
}

if (import.meta.main) {
  const path = process.argv[2];
  const report = path ? Bun.file(path) : undefined;
  const failures = report && (await report.exists()) ? failuresOf(await report.text()) : [];
  console.log(`\n${failures.length} failed, with their errors (${path}):`);
  for (const { file, name, error } of failures) console.log(`\n✗ ${file} > ${name}\n${error.trimEnd()}`);
  if (failures.length === 0) console.log('none recorded: the run stopped before its report (see above)');
  process.exit(1);
}
