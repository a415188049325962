import { z } from 'zod';
import {
  AnswerComparisonSchema,
  ComparisonListQuerySchema,
  CorrectionInput,
  CreateComparisonSchema,
  FeedbackListQuerySchema,
  PreferenceInput,
  RatingInput,
} from '../../../core/model/feedback.js';
import { AddItemsSchema, CompleteSchema, CreateQueueSchema, ItemListQuerySchema, NextSchema, SkipSchema, ToSuiteSchema } from '../../../core/model/queue.js';
import { ListQuerySchema as QueueListQuery } from '../../routes/queues.js';
import {
  ComparisonAnswerSchema,
  ComparisonListSchema,
  ComparisonSchema,
  CompletedItemSchema,
  CreatedQueueSchema,
  FeedbackListSchema,
  FeedbackSchema,
  ItemListSchema,
  ItemsAddedSchema,
  ItemToSuiteSchema,
  NextItemSchema,
  QueueItemSchema,
  QueueListSchema,
  ReviewQueueSchema,
} from '../../../core/model/answers-feedback.js';
import { defineRoutes, routeGroup } from '../route-spec.js';

/** Feedback and review queues (api/openapi/registry.ts). */
const feedbackAccess = { read: 'feedback:read', write: 'feedback:write' } as const;
const feedback = routeGroup('Feedback', feedbackAccess);
const queues = routeGroup('Review queues', feedbackAccess);
/** The routes of one queue answer 404 when there is no such queue or item. */
const queue = routeGroup('Review queues', feedbackAccess, { errors: [404] });
/** What a reviewer does with an item: the body may be left out; 404 for no such item, 409 when its state forbids it (locked by another reviewer, no correction yet...). */
const review = routeGroup('Review queues', feedbackAccess, { bodyOptional: true, errors: [404, 409] });

/** GET and POST both take the next item and lock it for the caller (a write either way); its options come as the query or the body. */
const takeNext = { summary: 'Take the next item to review (locks it)', answers: { 200: NextItemSchema } };

export const FEEDBACK_ROUTES = defineRoutes([
  feedback.post('/api/feedback/comparisons', 'createComparison', 'Ask a person to compare two outputs', {
    body: CreateComparisonSchema,
    answers: { 201: ComparisonSchema },
  }),
  feedback.get('/api/feedback/comparisons', 'listComparisons', 'Comparisons', { query: ComparisonListQuerySchema, answers: { 200: ComparisonListSchema } }),
  feedback.get('/api/feedback/comparisons/{id}', 'getComparison', 'A comparison', { answers: { 200: ComparisonSchema }, errors: [404] }),
  feedback.post('/api/feedback/comparisons/{id}/answer', 'answerComparison', 'Answer a comparison', {
    body: AnswerComparisonSchema,
    bodyOptional: true,
    answers: { 200: ComparisonAnswerSchema, 201: ComparisonAnswerSchema },
    errors: [404, 409],
  }),
  feedback.post('/api/feedback', 'createFeedback', 'Record feedback: a preference, a correction or a rating', {
    body: z.union([PreferenceInput, CorrectionInput, RatingInput]),
    answers: { 201: FeedbackSchema },
    idempotent: true,
  }),
  feedback.get('/api/feedback', 'listFeedback', 'Feedback', { query: FeedbackListQuerySchema, answers: { 200: FeedbackListSchema } }),
  feedback.get('/api/feedback/{id}', 'getFeedback', 'One feedback', { answers: { 200: FeedbackSchema }, errors: [404] }),
  queues.post('/api/queues', 'createQueue', 'Create a review queue of traces', {
    body: CreateQueueSchema,
    answers: { 201: CreatedQueueSchema },
    errors: [409],
  }),
  queues.get('/api/queues', 'listQueues', 'Review queues', { query: QueueListQuery, answers: { 200: QueueListSchema } }),
  queue.get('/api/queues/{id}', 'getQueue', 'A review queue', { answers: { 200: ReviewQueueSchema } }),
  queue.post('/api/queues/{id}/items', 'addQueueItems', 'Add traces to a queue', {
    body: AddItemsSchema,
    bodyOptional: true,
    answers: { 200: ItemsAddedSchema },
  }),
  queue.get('/api/queues/{id}/items', 'listQueueItems', "A queue's items", { query: ItemListQuerySchema, answers: { 200: ItemListSchema } }),
  queue.get('/api/queues/{id}/items/{itemId}', 'getQueueItem', 'A queue item', { answers: { 200: QueueItemSchema } }),
  queue.get('/api/queues/{id}/next', 'nextQueueItem', takeNext.summary, { access: 'feedback:write', query: NextSchema, answers: takeNext.answers }),
  queue.post('/api/queues/{id}/next', 'takeNextQueueItem', takeNext.summary, { body: NextSchema, bodyOptional: true, answers: takeNext.answers }),
  review.post('/api/queues/{id}/items/{itemId}/complete', 'completeQueueItem', 'Complete a review', {
    body: CompleteSchema,
    answers: { 200: CompletedItemSchema },
  }),
  review.post('/api/queues/{id}/items/{itemId}/skip', 'skipQueueItem', 'Skip an item', { body: SkipSchema, answers: { 200: QueueItemSchema } }),
  review.post('/api/queues/{id}/items/{itemId}/to-suite', 'queueItemToSuite', "Add a reviewed item's correction to a suite as a case", {
    access: 'evals:write',
    body: ToSuiteSchema,
    answers: { 200: ItemToSuiteSchema, 201: ItemToSuiteSchema },
  }),
]);
