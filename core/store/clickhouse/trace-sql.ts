/**
 * SQL of the trace tables. Values are always bound ({name:Type}); the only text spliced in is
 * from the fixed fragments below.
 */

export const GET_SPAN = `
SELECT * EXCEPT (project_id, ingested_at)
FROM agent_eval.spans
WHERE project_id = {project:String} AND span_id = {span:String}
ORDER BY ingested_at DESC
LIMIT 1`;
