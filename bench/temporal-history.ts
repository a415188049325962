import { Client, Connection } from '@temporalio/client';
import { runWorkflowId } from '../workflows/contract.js';
import { median, round } from './lib.js';

/*
 * Temporal histories, for the eval-runs benchmark (bench/eval-runs.ts): where the time of a case
 * goes, by the server's clock.
 */

type HistoryEvent = {
  eventId?: unknown;
  eventTime?: { seconds?: unknown; nanos?: number | null } | null;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
  activityTaskStartedEventAttributes?: { scheduledEventId?: unknown } | null;
  activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null;
  startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string | null } | null;
  childWorkflowExecutionStartedEventAttributes?: { workflowExecution?: { workflowId?: string | null } | null } | null;
  childWorkflowExecutionCompletedEventAttributes?: { workflowExecution?: { workflowId?: string | null } | null } | null;
  workflowExecutionStartedEventAttributes?: { continuedExecutionRunId?: string | null } | null;
  workflowTaskScheduledEventAttributes?: unknown;
  workflowTaskStartedEventAttributes?: unknown;
  workflowTaskCompletedEventAttributes?: unknown;
  workflowExecutionCompletedEventAttributes?: unknown;
};

/** The event's kind: the name of its attributes field, without `EventAttributes`. */
const kind = (e: HistoryEvent) =>
  Object.keys(e)
    .find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k])
    ?.replace('EventAttributes', '') ?? '?';
/** An int64 of the history (a protobufjs Long, or a number). */
const int = (v: unknown) => (v && typeof v === 'object' && 'toNumber' in v ? (v as { toNumber(): number }).toNumber() : Number(v ?? 0));
const ms = (e: HistoryEvent) => int(e.eventTime?.seconds) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
const id = int;

/** What happens between two consecutive events of a case workflow, named by what was pending. */
function caseSegments(events: HistoryEvent[]) {
  const seg: Record<string, number> = {};
  const add = (k: string, v: number) => (seg[k] = (seg[k] ?? 0) + v);
  const activityOf = new Map<number, string>();
  let wftScheduledBy = 'start';
  let last = 'start';
  for (const e of events) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) activityOf.set(id(e.eventId), name);
  }
  const sorted = [...events].sort((a, b) => id(a.eventId) - id(b.eventId));
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    const dt = Math.max(0, ms(b) - ms(a));
    if (a.activityTaskScheduledEventAttributes && b.activityTaskStartedEventAttributes) add(`${activityOf.get(id(a.eventId))}.queue`, dt);
    else if (a.activityTaskStartedEventAttributes && b.activityTaskCompletedEventAttributes)
      add(`${activityOf.get(id(b.activityTaskCompletedEventAttributes.scheduledEventId))}.run`, dt);
    else if (a.workflowTaskScheduledEventAttributes && b.workflowTaskStartedEventAttributes) add(`wft_after_${wftScheduledBy}.queue`, dt);
    else if (a.workflowTaskStartedEventAttributes && b.workflowTaskCompletedEventAttributes) add(`wft_after_${wftScheduledBy}.run`, dt);
    else if (dt > 0) add(`other.${kind(a)}->${kind(b)}`, dt);
    if (a.activityTaskCompletedEventAttributes) last = activityOf.get(id(a.activityTaskCompletedEventAttributes.scheduledEventId)) ?? '?';
    if (b.workflowTaskScheduledEventAttributes) wftScheduledBy = last;
  }
  const total = sorted.length > 1 ? ms(sorted.at(-1)!) - ms(sorted[0]) : 0;
  return { total, seg };
}

async function fetchHistory(client: Client, workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

/** Every execution of a workflow that continued as new, oldest first. */
async function fetchChain(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const chain: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (let i = 0; i < 20; i++) {
    const events = await fetchHistory(client, workflowId, runId);
    chain.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) break;
  }
  return chain.flat();
}

/**
 * Per case, on the server's clock: the parent starting the child (initiated -> the child's first
 * event), the child's own time broken down by what was pending (each activity queued or running,
 * each workflow task queued or running on the worker), the child's completion reaching the
 * parent, and (sequential runs) the parent's turn from one child's completion to the next start.
 * Means in ms per case, plus the median child total.
 */
export async function caseTimeline(address: string, runId: string, cases: number, sequential: boolean) {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const parent = await fetchChain(client, runWorkflowId(runId));
    const initiated = new Map<string, number>();
    const childDone = new Map<string, number>();
    const order: string[] = [];
    for (const e of parent) {
      const start = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (start) {
        initiated.set(start, ms(e));
        order.push(start);
      }
      const done = e.childWorkflowExecutionCompletedEventAttributes?.workflowExecution?.workflowId;
      if (done) childDone.set(done, ms(e));
    }
    const sums: Record<string, number> = {};
    const add = (k: string, v: number) => (sums[k] = (sums[k] ?? 0) + v);
    const totals: number[] = [];
    let analysed = 0;
    let inFlight = 0;
    for (let i = 0; i < order.length; i += 8) {
      const batch = order.slice(i, i + 8);
      const histories = await Promise.all(batch.map((wf) => fetchHistory(client, wf)));
      batch.forEach((wf, j) => {
        const events = histories[j];
        if (events.length === 0) return;
        analysed++;
        const { total, seg } = caseSegments(events);
        totals.push(total);
        add('parent_start_child', ms(events[0]) - (initiated.get(wf) ?? ms(events[0])));
        add('child_total', total);
        for (const [k, v] of Object.entries(seg)) add(`child.${k}`, v);
        const done = childDone.get(wf);
        if (done !== undefined) add('child_completion_to_parent', done - ms(events.at(-1)!));
        const next = order[i + j + 1];
        if (sequential && next && done !== undefined) add('parent_next_start', (initiated.get(next) ?? done) - done);
        if (done !== undefined) inFlight += done - (initiated.get(wf) ?? done);
      });
    }
    const mean = Object.fromEntries(
      Object.entries(sums)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, round(v / Math.max(1, analysed), 2)]),
    );
    const first = ms(parent[0]);
    const lastEvent = ms(parent.at(-1)!);
    const starts = order.map((wf) => initiated.get(wf)!);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]);
    return {
      cases_analysed: analysed,
      of: cases,
      parent_events: parent.length,
      parent_workflow_ms: round(lastEvent - first, 1),
      /** Children in flight on average, from the parent's view (start initiated -> completion seen). */
      children_in_flight_mean: round(inFlight / Math.max(1, lastEvent - first), 2),
      /** From one child's start command to the next one's. */
      parent_start_interval_ms_median: gaps.length ? round(median(gaps), 1) : null,
      child_total_ms_median: round(median(totals), 2),
      mean_ms_per_case: mean,
    };
  } finally {
    await connection.close();
  }
}
