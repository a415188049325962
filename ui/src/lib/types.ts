// The UI shows what the API answers: the one domain model of core/model (STYLE 4), imported as types only.
export type { TraceSummary, TraceList, TraceDetail, TraceSpanView, SpanView } from '../../../core/model/trace.js';
export type { Score } from '../../../core/model/score.js';
export type { ProjectView as Project } from '../../../core/store/postgres/key-store.js';
