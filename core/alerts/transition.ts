import type { AlertEventKind, AlertState, NoDataPolicy } from '../model/alert.js';

/** What one evaluation found: the condition met or not, or too little data to say. */
export type EvaluationOutcome = { kind: 'value'; breached: boolean } | { kind: 'no_data' };

export interface Transition {
  state: AlertState;
  /** Set when the state changes in a way a webhook hears about. */
  event?: AlertEventKind;
}

/**
 * A rule's next state (docs/alerts.md, "States"):
 * - condition met: `firing`, event `fired` when it was not firing;
 * - condition not met: `ok`, event `resolved` when it was firing or `no_data`;
 * - no data, policy `ok`: as "not met"; policy `alert`: `no_data`, event `no_data` when it was
 *   not in that state; policy `keep`: nothing changes.
 */
export function transition(previous: AlertState, outcome: EvaluationOutcome, noData: NoDataPolicy): Transition {
  if (outcome.kind === 'no_data') {
    if (noData === 'keep') return { state: previous };
    if (noData === 'alert') return previous === 'no_data' ? { state: 'no_data' } : { state: 'no_data', event: 'no_data' };
    return settle(previous);
  }
  if (outcome.breached) return previous === 'firing' ? { state: 'firing' } : { state: 'firing', event: 'fired' };
  return settle(previous);
}

function settle(previous: AlertState): Transition {
  return previous === 'ok' ? { state: 'ok' } : { state: 'ok', event: 'resolved' };
}
