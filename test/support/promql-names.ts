// The metric names a PromQL expression selects, for checking that a dashboard's or an alert's queries name
// metrics the server exports. Not a parser (promtool parses the expressions: test/metrics.test.ts): strings,
// label matchers, ranges and grouping clauses are removed, then every identifier left that is not a
// function call or an operator keyword is a metric name.

const KEYWORDS = new Set(["and", "or", "unless", "offset", "bool", "inf", "nan"]);

/** The metric names in `expr`, each once, in order of appearance. */
export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names: string[] = [];
  for (const match of bare.matchAll(/(?<![\w.$])[a-zA-Z_:][\w:]*(?![\w:]|\s*\()/g)) {
    const name = match[0];
    if (!KEYWORDS.has(name.toLowerCase()) && !names.includes(name)) names.push(name);
  }
  return names;
}
