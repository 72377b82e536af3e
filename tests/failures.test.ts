import { expect, test } from 'bun:test';
import { failuresOf } from './failures.ts';

test('failuresOf: each failed test of a bun JUnit report, with its describe path and its error as written', () => {
  const report = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="3" failures="2">
  <testsuite name="a.test.ts" file="a.test.ts" tests="2" failures="1">
    <testcase name="ok" classname="" file="a.test.ts" />
    <testcase name="throws" classname="" file="a.test.ts">
      <failure type="Error" message="net::ERR_FAILED">Error: net::ERR_FAILED&#10;      at a.test.ts:4:40&#10;</failure>
    </testcase>
  </testsuite>
  <testsuite name="b.test.ts" file="b.test.ts" tests="1" failures="1">
    <testsuite name="outer" file="b.test.ts">
      <testsuite name="inner" file="b.test.ts">
        <testcase name="deep" classname="inner &gt; outer" file="b.test.ts">
          <failure type="AssertionError" message="x">Expected: &quot;3&quot; &lt; 4</failure>
        </testcase>
      </testsuite>
    </testsuite>
  </testsuite>
</testsuites>`;
  expect(failuresOf(report)).toEqual([
    { file: 'a.test.ts', name: 'throws', error: 'Error: net::ERR_FAILED\n      at a.test.ts:4:40\n' },
    { file: 'b.test.ts', name: 'outer > inner > deep', error: 'Expected: "3" < 4' },
  ]);
});
