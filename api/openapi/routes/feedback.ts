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
const feedbackRoutes = routeGroup('Feedback', 'feedback:read');
const reviewQueueRoutes = routeGroup('Review queues', 'feedback:write');

export const FEEDBACK_ROUTES = defineRoutes([
  feedbackRoutes.post('/api/feedback/comparisons', 'createComparison', 'Ask a person to compare two outputs', {
    access: 'feedback:write',
    body: CreateComparisonSchema,
    answers: { 201: ComparisonSchema },
  }),
  feedbackRoutes.get('/api/feedback/comparisons', 'listComparisons', 'Comparisons', {
    query: ComparisonListQuerySchema,
    answers: { 200: ComparisonListSchema },
  }),
  feedbackRoutes.get('/api/feedback/comparisons/{id}', 'getComparison', 'A comparison', { answers: { 200: ComparisonSchema }, errors: [404] }),
  feedbackRoutes.post('/api/feedback/comparisons/{id}/answer', 'answerComparison', 'Answer a comparison', {
    access: 'feedback:write',
    body: AnswerComparisonSchema,
    bodyOptional: true,
    answers: { 200: ComparisonAnswerSchema, 201: ComparisonAnswerSchema },
    errors: [404, 409],
  }),
  feedbackRoutes.post('/api/feedback', 'createFeedback', 'Record feedback: a preference, a correction or a rating', {
    access: 'feedback:write',
    body: z.union([PreferenceInput, CorrectionInput, RatingInput]),
    answers: { 201: FeedbackSchema },
    idempotent: true,
  }),
  feedbackRoutes.get('/api/feedback', 'listFeedback', 'Feedback', { query: FeedbackListQuerySchema, answers: { 200: FeedbackListSchema } }),
  feedbackRoutes.get('/api/feedback/{id}', 'getFeedback', 'One feedback', { answers: { 200: FeedbackSchema }, errors: [404] }),
  reviewQueueRoutes.post('/api/queues', 'createQueue', 'Create a review queue of traces', {
    body: CreateQueueSchema,
    answers: { 201: CreatedQueueSchema },
    errors: [409],
  }),
  reviewQueueRoutes.get('/api/queues', 'listQueues', 'Review queues', { access: 'feedback:read', query: QueueListQuery, answers: { 200: QueueListSchema } }),
  reviewQueueRoutes.get('/api/queues/{id}', 'getQueue', 'A review queue', { access: 'feedback:read', answers: { 200: ReviewQueueSchema }, errors: [404] }),
  reviewQueueRoutes.post('/api/queues/{id}/items', 'addQueueItems', 'Add traces to a queue', {
    body: AddItemsSchema,
    bodyOptional: true,
    answers: { 200: ItemsAddedSchema },
    errors: [404],
  }),
  reviewQueueRoutes.get('/api/queues/{id}/items', 'listQueueItems', "A queue's items", {
    access: 'feedback:read',
    query: ItemListQuerySchema,
    answers: { 200: ItemListSchema },
    errors: [404],
  }),
  reviewQueueRoutes.get('/api/queues/{id}/items/{itemId}', 'getQueueItem', 'A queue item', {
    access: 'feedback:read',
    answers: { 200: QueueItemSchema },
    errors: [404],
  }),
  reviewQueueRoutes.get('/api/queues/{id}/next', 'nextQueueItem', 'Take the next item to review (locks it)', {
    query: NextSchema,
    answers: { 200: NextItemSchema },
    errors: [404],
  }),
  reviewQueueRoutes.post('/api/queues/{id}/next', 'takeNextQueueItem', 'Take the next item to review (locks it)', {
    body: NextSchema,
    bodyOptional: true,
    answers: { 200: NextItemSchema },
    errors: [404],
  }),
  reviewQueueRoutes.post('/api/queues/{id}/items/{itemId}/complete', 'completeQueueItem', 'Complete a review', {
    body: CompleteSchema,
    bodyOptional: true,
    answers: { 200: CompletedItemSchema },
    errors: [404, 409],
  }),
  reviewQueueRoutes.post('/api/queues/{id}/items/{itemId}/skip', 'skipQueueItem', 'Skip an item', {
    body: SkipSchema,
    bodyOptional: true,
    answers: { 200: QueueItemSchema },
    errors: [404, 409],
  }),
  reviewQueueRoutes.post('/api/queues/{id}/items/{itemId}/to-suite', 'queueItemToSuite', "Add a reviewed item's correction to a suite as a case", {
    access: 'evals:write',
    body: ToSuiteSchema,
    bodyOptional: true,
    answers: { 200: ItemToSuiteSchema, 201: ItemToSuiteSchema },
    errors: [404, 409],
  }),
]);
