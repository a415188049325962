import { createHash } from 'node:crypto';
import type { RunComparison } from '../core/evals/compare.js';
import type { RunSummary } from '../core/model/eval-run.js';
import { AgentEvalClient } from './client.js';
import { ExperimentValidationError } from './errors.js';
import { evaluate, type AgentFunction, type EvaluateOptions, type EvaluationResult } from './evaluate.js';
import type { Suite, SuiteDefinitionInput } from './suites.js';

/**
 * Experiments: one control and one or more treatments of an agent (SPEC "Experiment
 * validation"). `assign()` splits live traffic by the variants' allocations; `run()` evaluates
 * every variant on a suite and compares each treatment with the control through the service's
 * comparison endpoint, whose paired permutation test decides significance (no second
 * statistics implementation here).
 */

export interface VariantDefinition {
  name: string;
  type: 'control' | 'treatment';
  /** Share of traffic `assign()` gives it, 0 to 100 (default: an equal share). */
  allocation?: number;
  /** The agent this variant runs in `run()`. */
  agent?: AgentFunction;
  /** Its runs' version label (default `{experiment}/{variant}`). */
  agentVersion?: string;
}

export interface ExperimentDefinition {
  name: string;
  variants: VariantDefinition[];
  /** Latency percentile reported for each variant, 0 to 100 (default 95). */
  percentile?: number;
  /** Confidence level of the significance test, between 0 and 1 (default 0.95): alpha = 1 - confidenceLevel. */
  confidenceLevel?: number;
  /** A per-case score change within ±threshold is noise (default 0.05). */
  threshold?: number;
}

export interface Variant extends Required<Pick<VariantDefinition, 'name' | 'type' | 'allocation'>> {
  agent?: AgentFunction;
  agentVersion: string;
}

export interface VariantResult {
  name: string;
  type: 'control' | 'treatment';
  runId: string | undefined;
  summary: RunSummary;
  passed: boolean;
  /** The agent calls' latency at the experiment's percentile, in ms. */
  latency: { percentile: number; ms: number | null };
  evaluation: EvaluationResult;
}

export interface TreatmentResult extends VariantResult {
  /** The comparison with the control (POST /api/compare). */
  comparison: RunComparison;
  /** The change in per-case scores is significant at the experiment's confidence level. */
  significant: boolean;
  /** Significantly better (true), worse (false), or not significantly different (null). */
  better: boolean | null;
}

export interface ExperimentResult {
  name: string;
  confidenceLevel: number;
  control: VariantResult;
  treatments: TreatmentResult[];
  /** The treatment significantly better than the control by the largest mean delta; null when none is. */
  winner: string | null;
}

const between = (v: unknown, lo: number, hi: number) => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;

/** Every rule the definition breaks, in the SPEC's words. */
export function experimentProblems(def: ExperimentDefinition): string[] {
  const problems: string[] = [];
  if (typeof def?.name !== 'string' || !def.name.trim()) problems.push('Experiment name is required');
  const variants = Array.isArray(def?.variants) ? def.variants : [];
  const controls = variants.filter((v) => v?.type === 'control').length;
  if (controls !== 1) problems.push(`Experiment must have exactly 1 control variant (found ${controls})`);
  if (!variants.some((v) => v?.type === 'treatment')) problems.push('Experiment must have at least 1 treatment variant');
  const names = new Set<string>();
  variants.forEach((v, i) => {
    const label = typeof v?.name === 'string' && v.name ? v.name : `#${i + 1}`;
    if (typeof v?.name !== 'string' || !v.name.trim()) problems.push(`Variant ${label} needs a name`);
    else if (names.has(v.name)) problems.push(`Variant names must be unique: '${v.name}' appears twice`);
    else names.add(v.name);
    if (v?.type !== 'control' && v?.type !== 'treatment') problems.push(`Variant '${label}' type must be "control" or "treatment"`);
    if (v?.allocation !== undefined && !between(v.allocation, 0, 100))
      problems.push(`Variant allocation must be between 0 and 100 (variant '${label}': ${String(v.allocation)})`);
  });
  if (variants.length && variants.every((v) => v?.allocation === 0)) problems.push('Variant allocations must not all be 0');
  if (def?.percentile !== undefined && !between(def.percentile, 0, 100)) problems.push(`Percentile must be between 0 and 100 (got ${String(def.percentile)})`);
  if (def?.confidenceLevel !== undefined && !(between(def.confidenceLevel, 0, 1) && def.confidenceLevel > 0 && def.confidenceLevel < 1)) {
    problems.push(`Confidence level must be between 0 and 1 (got ${String(def.confidenceLevel)})`);
  }
  if (def?.threshold !== undefined && !between(def.threshold, 0, 1)) problems.push(`Threshold must be between 0 and 1 (got ${String(def.threshold)})`);
  return problems;
}

/** Nearest-rank percentile of `values` (null when empty). */
function percentileOf(values: number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

export class Experiment {
  readonly name: string;
  readonly variants: readonly Variant[];
  readonly percentile: number;
  readonly confidenceLevel: number;
  readonly threshold: number;

  constructor(def: ExperimentDefinition) {
    const problems = experimentProblems(def);
    if (problems.length) throw new ExperimentValidationError(problems);
    this.name = def.name;
    const given = def.variants.filter((v) => v.allocation !== undefined).reduce((s, v) => s + v.allocation!, 0);
    const unset = def.variants.filter((v) => v.allocation === undefined).length;
    const share = unset ? Math.max(0, 100 - given) / unset : 0;
    this.variants = def.variants.map((v) => ({
      name: v.name,
      type: v.type,
      allocation: v.allocation ?? share,
      agent: v.agent,
      agentVersion: v.agentVersion ?? `${def.name}/${v.name}`,
    }));
    this.percentile = def.percentile ?? 95;
    this.confidenceLevel = def.confidenceLevel ?? 0.95;
    this.threshold = def.threshold ?? 0.05;
  }

  get control(): Variant {
    return this.variants.find((v) => v.type === 'control')!;
  }

  get treatments(): Variant[] {
    return this.variants.filter((v) => v.type === 'treatment');
  }

  /**
   * The variant for a unit (user, session, request id): the same unit always gets the same
   * variant, and units split by the allocations (taken as relative weights when they do not add
   * up to 100).
   */
  assign(unitId: string): Variant {
    const total = this.variants.reduce((s, v) => s + v.allocation, 0);
    const h = createHash('sha256').update(`${this.name}\u0000${unitId}`).digest();
    const point = (h.readUInt32BE(0) / 0x1_0000_0000) * total;
    let acc = 0;
    for (const v of this.variants) {
      acc += v.allocation;
      if (point < acc) return v;
    }
    return this.variants.filter((v) => v.allocation > 0).at(-1)!;
  }

  /** Span attributes naming the experiment and a variant (`span.setAttributes(experiment.attributes(v))`). */
  attributes(variant: Variant | string): Record<string, string> {
    return { 'experiment.name': this.name, 'experiment.variant': typeof variant === 'string' ? variant : variant.name };
  }

  /**
   * Evaluates every variant's agent on `suite` (the control first), uploading a run each, and
   * compares each treatment with the control on the service (POST /api/compare at alpha = 1 -
   * confidenceLevel).
   */
  async run(suite: Suite | SuiteDefinitionInput | string, options: Omit<EvaluateOptions, 'agent' | 'agentVersion' | 'upload'> = {}): Promise<ExperimentResult> {
    const missing = this.variants.filter((v) => !v.agent).map((v) => v.name);
    if (missing.length)
      throw new ExperimentValidationError([`Variant${missing.length > 1 ? 's' : ''} ${missing.map((n) => `'${n}'`).join(', ')} need an agent to run`]);
    const client = options.client ?? new AgentEvalClient(options);
    const evaluateVariant = async (v: Variant): Promise<VariantResult> => {
      const evaluation = await evaluate(suite, {
        throwOnCaseErrors: false,
        ...options,
        client,
        agent: v.agent!,
        agentVersion: v.agentVersion,
        name: `experiment ${this.name}: ${v.name}`,
      });
      return {
        name: v.name,
        type: v.type,
        runId: evaluation.runId,
        summary: evaluation.summary,
        passed: evaluation.passed,
        latency: {
          percentile: this.percentile,
          ms: percentileOf(
            evaluation.outcomes.map((o) => o.latencyMs),
            this.percentile,
          ),
        },
        evaluation,
      };
    };
    const control = await evaluateVariant(this.control);
    const treatments: TreatmentResult[] = [];
    for (const v of this.treatments) {
      const result = await evaluateVariant(v);
      const comparison = await client.compare(control.runId!, result.runId!, { threshold: this.threshold, alpha: 1 - this.confidenceLevel });
      const significant = comparison.significance.significant;
      treatments.push({ ...result, comparison, significant, better: significant ? comparison.significance.mean_delta > 0 : null });
    }
    const winners = treatments.filter((t) => t.better === true).sort((a, b) => b.comparison.significance.mean_delta - a.comparison.significance.mean_delta);
    return { name: this.name, confidenceLevel: this.confidenceLevel, control, treatments, winner: winners[0]?.name ?? null };
  }
}

/**
 * Defines an experiment: exactly one `control` and at least one `treatment` variant, each
 * allocation 0 to 100, a percentile 0 to 100 and a confidence level between 0 and 1. Throws
 * {@link ExperimentValidationError} listing every rule broken.
 */
export function defineExperiment(def: ExperimentDefinition): Experiment {
  return new Experiment(def);
}
