import { newestSpanRows } from './newest-span-rows.js';
import { USE_TRACE_ID_BLOOM } from './trace-id-bloom.js';

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
 * whole), newest row per span, with `input` and `output` cut to {cap} code points and flags saying
 * whether they were. In one SELECT, without a subquery: an unqualified `input` there names the
 * cut value (REPLACE's alias), so the flags read the stored column by its table, `spans.input`.
 * Each level of a statement costs ClickHouse analysis time: the nested form took 11.4 against 10.1
 * ms for a 10-span trace (docs/benchmarks.md, "A trace's summary as its states"). Asks for
 * `limit` rows; the caller passes one more than it shows, to learn whether a next page exists.
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
${newestSpanRows(
  `* EXCEPT (project_id, ingested_at)
      REPLACE (substringUTF8(input, 1, {cap:UInt32}) AS input, substringUTF8(output, 1, {cap:UInt32}) AS output),
    lengthUTF8(spans.input) > {cap:UInt32} AS input_truncated,
    lengthUTF8(spans.output) > {cap:UInt32} AS output_truncated`,
  `project_id = {project:String} AND trace_id = {trace:String}${chosen}`,
)}
ORDER BY start_time, span_id${whole ? '\nLIMIT {limit:UInt32}' : ''}
${USE_TRACE_ID_BLOOM}`;
}
