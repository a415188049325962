-- Human feedback (preference, correction, rating), pairwise comparisons waiting for an answer,
-- and review queues of traces with their items (docs/feedback.md). Every table carries
-- project_id and every query filters by it. Times are cut to milliseconds so that a keyset
-- cursor (milliseconds + id) names a row exactly.

-- One row per feedback. `data` holds the type's own fields (the `preference`, `correction` or
-- `rating` object of the API). `request_hash` is set for a POST that carried an Idempotency-Key:
-- the id then derives from the key, and a retry with another body is refused.
CREATE TABLE IF NOT EXISTS feedback (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    type text NOT NULL CHECK (type IN ('preference', 'correction', 'rating')),
    trace_id text,
    span_id text,
    data jsonb NOT NULL,
    user_id text,
    source text,
    comparison_id uuid,
    queue_item_id uuid,
    request_hash text,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

-- GET /api/feedback lists newest first, optionally for one type or one trace.
CREATE INDEX IF NOT EXISTS feedback_project_created ON feedback (project_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS feedback_project_type ON feedback (project_id, type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS feedback_project_trace ON feedback (project_id, trace_id, created_at DESC, id DESC) WHERE trace_id IS NOT NULL;

-- A pair of outputs for one prompt, waiting for a person to say which is better. Answering it
-- records a preference feedback (feedback_id) and marks it answered, once.
CREATE TABLE IF NOT EXISTS feedback_comparisons (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    prompt text NOT NULL,
    output_a text NOT NULL,
    output_b text NOT NULL,
    trace_a text,
    trace_b text,
    user_id text,
    source text,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'answered')),
    preferred text CHECK (preferred IN ('a', 'b', 'tie')),
    reason text,
    answered_by text,
    feedback_id uuid,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
    answered_at timestamptz
);

CREATE INDEX IF NOT EXISTS feedback_comparisons_project ON feedback_comparisons (project_id, status, created_at DESC, id DESC);

-- A review queue: the scores its reviewers fill in (score_names, normalized configs), the filter
-- its items were taken from, and how long `next` locks an item.
CREATE TABLE IF NOT EXISTS review_queues (
    id uuid PRIMARY KEY,
    project_id text NOT NULL,
    name text NOT NULL,
    description text,
    score_names jsonb NOT NULL,
    filter jsonb,
    lock_seconds integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
    updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

CREATE UNIQUE INDEX IF NOT EXISTS review_queues_project_name ON review_queues (project_id, name);
CREATE INDEX IF NOT EXISTS review_queues_project_created ON review_queues (project_id, created_at DESC, id DESC);

-- One trace to review. `status` is pending, skipped or completed; "locked" is not stored but
-- derived: an item not completed whose locked_until is still ahead. An expired lock therefore
-- frees the item with no sweeper. `seq` is the queue order `next` follows.
CREATE TABLE IF NOT EXISTS review_queue_items (
    id uuid PRIMARY KEY,
    queue_id uuid NOT NULL REFERENCES review_queues (id) ON DELETE CASCADE,
    project_id text NOT NULL,
    trace_id text NOT NULL,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'skipped', 'completed')),
    locked_by text,
    locked_until timestamptz,
    skipped_by text[] NOT NULL DEFAULT '{}',
    completed_by text,
    completed_at timestamptz,
    scores jsonb,
    comment text,
    correction jsonb,
    completion_hash text,
    feedback_id uuid,
    suite_case jsonb,
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

-- A trace is in a queue at most once: adding it again is a no-op.
CREATE UNIQUE INDEX IF NOT EXISTS review_queue_items_trace ON review_queue_items (queue_id, trace_id);
-- `next` scans a queue's open items in order.
CREATE INDEX IF NOT EXISTS review_queue_items_open ON review_queue_items (queue_id, seq) WHERE status <> 'completed';
CREATE INDEX IF NOT EXISTS review_queue_items_queue ON review_queue_items (queue_id, status, seq);
