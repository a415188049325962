import type { Comparison, ComparisonList, CreateComparisonBody, Feedback, FeedbackBody, FeedbackList } from '../core/model/feedback.js';
import type { CreateQueueBody, ItemList, QueueItem, QueueList, ReviewQueue } from '../core/model/queue.js';
import type { Page, Query } from './api-types.js';
import { enc, type EndpointCalls } from './endpoint-calls.js';

/* The endpoint groups of feedback, comparisons and review queues (docs/feedback.md): parts of {@link AgentEvalApi}, over its calls. */

export const feedbackEndpoints = (c: EndpointCalls) => ({
  /** POST /api/feedback; with `idempotencyKey`, sending it again records it once. */
  create: (body: FeedbackBody, opts: { idempotencyKey?: string } = {}) => c.create<Feedback>('/api/feedback', body, opts.idempotencyKey),
  list: (params: Page & Query = {}) => c.get<FeedbackList>('/api/feedback', params),
  get: (id: string) => c.get<Feedback>(`/api/feedback/${enc(id)}`),
  comparisons: {
    create: (body: CreateComparisonBody) => c.post<Comparison>('/api/feedback/comparisons', body),
    list: (params: Page & { status?: 'pending' | 'answered' } = {}) => c.get<ComparisonList>('/api/feedback/comparisons', params),
    get: (id: string) => c.get<Comparison>(`/api/feedback/comparisons/${enc(id)}`),
    answer: (id: string, body: { preferred: 'a' | 'b' | 'tie'; reason?: string | null; user_id?: string | null }) =>
      c.request<{ comparison: Comparison; feedback: Feedback }>('POST', `/api/feedback/comparisons/${enc(id)}/answer`, {
        json: body,
        idempotent: true,
      }),
  },
});

export const queueEndpoints = (c: EndpointCalls) => ({
  create: (body: CreateQueueBody) => c.post<ReviewQueue & { truncated: boolean }>('/api/queues', body),
  list: (page: Page = {}) => c.get<QueueList>('/api/queues', page),
  get: (id: string) => c.get<ReviewQueue>(`/api/queues/${enc(id)}`),
  addItems: (id: string, body: { trace_ids?: string[]; filter?: Record<string, unknown>; max_items?: number }) =>
    c.post<ReviewQueue & { truncated: boolean }>(`/api/queues/${enc(id)}/items`, body),
  items: (id: string, params: Page & { state?: string } = {}) => c.get<ItemList>(`/api/queues/${enc(id)}/items`, params),
  item: (id: string, itemId: string) => c.get<QueueItem>(`/api/queues/${enc(id)}/items/${enc(itemId)}`),
  /** Locks the next pending item for `reviewer`. */
  next: (id: string, body: { reviewer?: string; lock_seconds?: number } = {}) =>
    c.post<{ item: QueueItem | null; lock_seconds: number }>(`/api/queues/${enc(id)}/next`, body),
  complete: (
    id: string,
    itemId: string,
    body: {
      scores?: Record<string, number | boolean | string>;
      correction?: { original?: string | null; corrected: string } | null;
      comment?: string | null;
      reviewer?: string;
    },
  ) =>
    c.request<{ item: QueueItem; feedback: Feedback | null; score_ids: string[] }>('POST', `/api/queues/${enc(id)}/items/${enc(itemId)}/complete`, {
      json: body,
      idempotent: true,
    }),
  skip: (id: string, itemId: string, body: { reviewer?: string } = {}) => c.post<QueueItem>(`/api/queues/${enc(id)}/items/${enc(itemId)}/skip`, body),
  toSuite: (id: string, itemId: string, body: { suite_id?: string; suite_name?: string; case_name?: string; scorers?: unknown[] }) =>
    c.post<Record<string, unknown>>(`/api/queues/${enc(id)}/items/${enc(itemId)}/to-suite`, body),
});
