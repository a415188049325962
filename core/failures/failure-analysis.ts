import { NotFoundError } from '../errors.js';
import type { JudgeRuntime } from '../judges/judge-scorer.js';
import { isUuid } from '../model/agent.js';
import type { RunFailureAnalysis, TraceFailureAnalysis, TraceFailureQuery } from '../model/failures.js';
import type { AnalyticsStore } from '../store/analytics.js';
import type { FailureLabelStore } from '../store/failure-labels.js';
import type { RunStore } from '../store/runs.js';
import { caseFailure, traceFailure } from './analyze.js';
import { labelGroups } from './label.js';
import { groupFailures } from './signature.js';

/** Most spans read for one analysis (the traces' narrow columns); traces past it are grouped by name alone. */
export const MAX_FAILURE_SPANS = 200_000;

export interface FailureAnalysisDeps {
  runs: RunStore;
  traces: Pick<AnalyticsStore, 'listTraces' | 'aggregates'>;
  labels: FailureLabelStore;
  /** The process's judge providers: labels are written by the default one; absent, groups are not labelled. */
  judges?: JudgeRuntime;
}

/**
 * Failure analysis (docs/api.md, "Failure analysis"): failures grouped by signature, for a run's
 * failed cases or a window's production traces with errors, labelled by a judge on request.
 */
export function createFailureAnalysis(deps: FailureAnalysisDeps) {
  async function labelled<T extends { groups: RunFailureAnalysis['groups'] }>(projectId: string, answer: T, label: boolean) {
    const note = label ? await labelGroups({ judges: deps.judges, store: deps.labels }, projectId, answer.groups) : null;
    return { ...answer, label_note: note };
  }

  return {
    async ofRun(projectId: string, runId: string, label: boolean): Promise<RunFailureAnalysis> {
      const run = isUuid(runId) ? await deps.runs.get(projectId, runId) : null;
      if (!run) throw new NotFoundError('Eval run not found', 'RUN_NOT_FOUND');
      const failed = ((await deps.runs.results(projectId, runId)) ?? []).filter((c) => c.status === 'failed');
      const cases = new Map(
        (
          await deps.runs.casesOf(
            runId,
            failed.map((c) => c.case_index),
          )
        ).map((c) => [c.case_index, c]),
      );
      const traceIds = failed.flatMap((c) => (c.trace_id ? [c.trace_id] : []));
      const spans = await deps.traces.aggregates.failureSpans(projectId, traceIds, MAX_FAILURE_SPANS);
      const failures = failed.map((c) => caseFailure(c, cases.get(c.case_index), run.min_score, c.trace_id ? spans.get(c.trace_id) : undefined));
      const answer = { run_id: run.id, failure_count: failures.length, groups: groupFailures(failures), truncated: false };
      return labelled(projectId, answer, label);
    },

    async ofTraces(projectId: string, q: TraceFailureQuery): Promise<TraceFailureAnalysis> {
      const list = await deps.traces.listTraces(projectId, {
        limit: q.limit,
        offset: 0,
        hasErrors: true,
        startTime: new Date(q.fromMs),
        endTime: new Date(q.toMs),
      });
      const spans = await deps.traces.aggregates.failureSpans(
        projectId,
        list.traces.map((t) => t.trace_id),
        MAX_FAILURE_SPANS,
      );
      const failures = list.traces.map((t) => traceFailure(t, spans.get(t.trace_id)));
      const answer = {
        start_time: new Date(q.fromMs).toISOString(),
        end_time: new Date(q.toMs).toISOString(),
        failure_count: failures.length,
        groups: groupFailures(failures),
        truncated: list.total > list.traces.length,
      };
      return labelled(projectId, answer, q.label);
    },
  };
}

export type FailureAnalysisService = ReturnType<typeof createFailureAnalysis>;
