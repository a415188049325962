import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as A from '../../../core/model/answers.js';
import type * as E from '../../../core/model/answers-evals.js';
import type { SpanView, TraceDetail, TraceList } from '../../../core/model/trace.js';
import type { SessionDetail, SessionList } from '../../../core/model/trace-session.js';
import type { Score } from '../../../core/model/score.js';
import type { Agent, AgentList } from '../../../core/model/agent.js';
import type { SuiteList, SuiteSummary, SuiteVersionInfo } from '../../../core/model/suite.js';
import type { CaseResultView, RunView } from '../../../core/model/eval-run.js';
import type { PromptLabels, PromptList, PromptVersion, PromptVersionList } from '../../../core/model/prompt.js';
import type { RunComparison } from '../../../core/evals/compare.js';
import type { LocalResultsAnswer, RunList, RunStatusView } from '../../../sdk/api-types.js';

/**
 * The answer schemas (core/model/answers*.ts) and the TypeScript types the stores and routes
 * build answers as, and the SDK hands its callers, say the same (checked by `tsc`, which CI runs):
 * every value of the type is a value of the schema, so a field added to a type and not to its
 * schema fails here before an API test meets it. Deep parts the schemas leave as documented
 * objects are checked one way (the type fits the schema).
 */
type Out<S extends z.ZodType> = z.output<S>;

describe('answer schemas and the model types', () => {
  it('traces, spans and sessions', () => {
    expectTypeOf<TraceList>().toExtend<Out<typeof A.TraceListSchema>>();
    expectTypeOf<TraceDetail>().toExtend<Out<typeof A.TraceDetailSchema>>();
    expectTypeOf<SpanView>().toExtend<Out<typeof A.SpanViewSchema>>();
    expectTypeOf<SessionList>().toExtend<Out<typeof A.SessionListSchema>>();
    expectTypeOf<SessionDetail>().toExtend<Out<typeof A.SessionDetailSchema>>();
  });

  it('scores, agents and suites', () => {
    expectTypeOf<Score>().toExtend<Out<typeof A.ScoreSchema>>();
    expectTypeOf<Out<typeof A.ScoreSchema>>().toExtend<Score>();
    expectTypeOf<Agent>().toEqualTypeOf<Out<typeof E.AgentSchema>>();
    expectTypeOf<AgentList>().toEqualTypeOf<Out<typeof E.AgentListSchema>>();
    expectTypeOf<SuiteSummary>().toEqualTypeOf<Out<typeof E.SuiteSummarySchema>>();
    expectTypeOf<SuiteList>().toEqualTypeOf<Out<typeof E.SuiteListSchema>>();
    expectTypeOf<SuiteVersionInfo[]>().toEqualTypeOf<Out<typeof E.SuiteVersionsSchema>['versions']>();
  });

  it('runs and prompts', () => {
    // A run's config and cost and a case's details and trials are interfaces, documented objects in the schemas.
    type RunDeep = 'config' | 'cost';
    expectTypeOf<Omit<RunView, RunDeep>>().toExtend<Omit<Out<typeof E.RunViewSchema>, RunDeep>>();
    expectTypeOf<Omit<Out<typeof E.RunViewSchema>, RunDeep>>().toExtend<Omit<RunView, RunDeep>>();
    expectTypeOf<keyof RunList>().toEqualTypeOf<keyof Out<typeof E.RunListSchema>>();
    expectTypeOf<RunStatusView['status']>().toEqualTypeOf<Out<typeof E.RunStatusSchema>['status']>();
    expectTypeOf<keyof RunStatusView>().toEqualTypeOf<keyof Out<typeof E.RunStatusSchema>>();
    type CaseDeep = 'details' | 'trials' | 'running';
    expectTypeOf<Omit<CaseResultView, CaseDeep>>().toExtend<Omit<Out<typeof E.CaseResultSchema>, CaseDeep>>();
    expectTypeOf<keyof CaseResultView>().toEqualTypeOf<keyof Out<typeof E.CaseResultSchema>>();
    // The significance and a conversation's turns are interfaces, documented objects in the schema.
    type Cmp = Out<typeof E.RunComparisonSchema>;
    expectTypeOf<Omit<RunComparison, 'significance' | 'cases'>>().toExtend<Omit<Cmp, 'significance' | 'cases'>>();
    expectTypeOf<Omit<RunComparison['cases'][number], 'conversation'>>().toExtend<Omit<Cmp['cases'][number], 'conversation'>>();
    expectTypeOf<keyof RunComparison>().toEqualTypeOf<keyof Out<typeof E.RunComparisonSchema>>();
    expectTypeOf<LocalResultsAnswer>().toEqualTypeOf<Out<typeof E.LocalResultsAnswerSchema>>();
    expectTypeOf<PromptVersion>().toExtend<Out<typeof E.PromptVersionSchema>>();
    expectTypeOf<PromptList>().toExtend<Out<typeof E.PromptListSchema>>();
    expectTypeOf<PromptVersionList>().toEqualTypeOf<Out<typeof E.PromptVersionListSchema>>();
    expectTypeOf<PromptLabels>().toEqualTypeOf<Out<typeof E.PromptLabelsSchema>>();
  });
});
