import { newestSpanRows } from './newest-span-rows.js';

/**
 * SQL of one page of a trace's spans, keyset-paged on (start_time, span_id). Values are always
 * bound ({name:Type}); the only text spliced in is the fixed keyset fragment. Each span is read in
 * its newest row (newest-span-rows.ts).
 */

/** How a span page is read: the first page or a cursor's by ids first, or a whole trace in one pass. */
export type SpanPageRead = 'first' | 'after' | 'whole';

const KEYSET = "WHERE (start_time, span_id) > ({afterTime:DateTime64(3, 'UTC')}, {afterSpan:String})";

/**
 * The page's span ids, chosen on the small key columns alone. Newest row per span first, so an
 * old version of a re-sent span neither counts nor places it; then the keyset; then the order.
 */
function pageKeys(after: boolean): string {
  return `
    SELECT span_id FROM (
      ${newestSpanRows('span_id, start_time', 'project_id = {project:String} AND trace_id = {trace:String}')}
    )
    ${after ? KEYSET : ''}
    ORDER BY start_time, span_id
    LIMIT {limit:UInt32}`;
}

/**
 * Full rows of the page's spans only (a 100k-span trace never has its inputs and outputs read
 * whole), newest row per span, with `input` and `output` cut to {cap} code points. The
 * `*_truncated` flags are computed one level down: in the same SELECT, ClickHouse resolves
 * `input` to the replaced (cut) value. Asks for `limit` rows; the caller passes one more than it
 * shows, to learn whether a next page exists.
 *
 * `read`: `first` and `after` (a cursor's page) choose the page's span ids first; `whole` is the
 * first page of a trace whose summary counts no more spans than the page holds. Then every span is
 * on the page, so their rows are read in one pass (at 10M spans: 19 against 25-35 ms). Should
 * spans arrive between the summary and this read, `limit` still bounds the page and the extra row
 * still says that another follows.
 */
export function spanPageSql(read: SpanPageRead): string {
  const whole = read === 'whole';
  const chosen = whole ? '' : ` AND span_id IN (${pageKeys(read === 'after')})`;
  return `
SELECT * EXCEPT (project_id, ingested_at)
  REPLACE (substringUTF8(input, 1, {cap:UInt32}) AS input, substringUTF8(output, 1, {cap:UInt32}) AS output)
FROM (
  ${newestSpanRows(
    '*, lengthUTF8(input) > {cap:UInt32} AS input_truncated, lengthUTF8(output) > {cap:UInt32} AS output_truncated',
    `project_id = {project:String} AND trace_id = {trace:String}${chosen}`,
  )}
)
ORDER BY start_time, span_id${whole ? '\nLIMIT {limit:UInt32}' : ''}`;
}
